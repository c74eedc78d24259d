// One jest setup for every Node workspace: TypeScript through swc, native ESM,
// and `@svc/shared` resolved to its sources so tests never need a build first.
export function jestConfig(rootDir, extra = {}) {
  return {
    rootDir,
    roots: ['<rootDir>/src'],
    testEnvironment: 'node',
    testEnvironmentOptions: { customExportConditions: ['@svc/source', 'node', 'node-addons'] },
    extensionsToTreatAsEsm: ['.ts'],
    moduleNameMapper: { '^(\\.{1,2}/.*)\\.js$': '$1' },
    transform: {
      '^.+\\.ts$': [
        '@swc/jest',
        {
          jsc: { parser: { syntax: 'typescript' }, target: 'es2022' },
          module: { type: 'es6' },
        },
      ],
    },
    testTimeout: 30000,
    ...extra,
  };
}
