import js from '@eslint/js';
import globals from 'globals';
import tseslint from 'typescript-eslint';
import importX from 'eslint-plugin-import-x';
import i18next from 'eslint-plugin-i18next';
import { createTypeScriptImportResolver } from 'eslint-import-resolver-typescript';
import { readdirSync } from 'node:fs';

// server/src is platform/ plus features (CONTRIBUTING.md). Every other folder there is a feature,
// which the platform's lower layers may not import (issue 36); only platform/'s assembly files
// (app.ts, context.ts, main.ts, the CLI and the OpenAPI document) see the features.
const PLATFORM = new Set(['platform', 'test']);
const PLATFORM_LAYERS = ['http', 'db', 'config', 'jobs'];
const FEATURES = readdirSync(new URL('server/src/', import.meta.url), { withFileTypes: true })
  .filter((d) => d.isDirectory() && !PLATFORM.has(d.name))
  .map((d) => `server/src/${d.name}`);
const SYNC = 'server/src/sync';
const RECOGNITION = 'server/src/recognition';
const wingOf = (feature) => (target, from, why) => ({
  target: `${feature}/${target}`,
  from: from.map((f) => `${feature}/${f}`),
  message: `${target}/ may not import ${from.join('/, ')}/: ${why} (${feature.replace('server/src/', '')}/README.md, floor plan).`,
});
const wing = wingOf(SYNC);
const recognitionWing = wingOf(RECOGNITION);

// SQL and its result types stay in stores (`<feature>/store.ts`, `<feature>/store/`) and db/.

export default tseslint.config(
  {
    ignores: [
      '**/node_modules/**',
      '**/dist/**',
      '**/data/**',
      '**/coverage/**',
      '**/test-results/**',
      '**/playwright-report/**',
    ],
  },
  js.configs.recommended,
  {
    files: ['**/*.{js,mjs,cjs}'],
    languageOptions: { globals: { ...globals.node } },
  },
  {
    files: ['**/*.{ts,tsx,cts,mts}'],
    extends: [...tseslint.configs.recommendedTypeChecked],
    languageOptions: {
      parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname },
    },
    rules: {
      '@typescript-eslint/no-floating-promises': 'error',
      '@typescript-eslint/no-misused-promises': 'error',
      '@typescript-eslint/no-explicit-any': 'error',
      '@typescript-eslint/consistent-type-imports': 'error',
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_' }],
    },
  },
  {
    // No import cycles: a module's dependencies form a tree its reader can follow down. Type-only
    // imports are left out (they vanish at build time; AppContext names every service's type).
    files: ['server/src/**/*.ts'],
    plugins: { 'import-x': importX },
    settings: {
      'import-x/extensions': ['.ts', '.js'],
      'import-x/parsers': { '@typescript-eslint/parser': ['.ts'] },
      'import-x/resolver-next': [
        createTypeScriptImportResolver({ project: 'server/tsconfig.json' }),
      ],
    },
    rules: { 'import-x/no-cycle': ['error', { ignoreExternal: true }] },
  },
  {
    // The direction of server/src: worker -> {planning, delivery, reconciliation} -> tasks -> db,
    // and the platform's HTTP layer above no feature. Type imports count too: a type ties the
    // two folders as much as a value does. Tests may drive the whole (a wing's end-to-end test
    // starts the worker).
    files: ['server/src/**/*.ts'],
    ignores: ['server/src/**/*.test.ts'],
    plugins: { 'import-x': importX },
    rules: {
      'import-x/no-restricted-paths': [
        'error',
        {
          basePath: import.meta.dirname,
          zones: [
            wing('planning', ['delivery', 'worker'], 'it writes tasks, it does not push them'),
            wing(
              'delivery',
              ['planning', 'worker', 'reconciliation'],
              'it pushes the tasks it reads, whoever wrote them',
            ),
            wing('reconciliation', ['delivery', 'worker'], 'it re-queues, delivery pushes'),
            wing(
              'tasks',
              ['planning', 'delivery', 'reconciliation', 'worker'],
              'the leaf every wing shares imports none of them',
            ),
            recognitionWing(
              'intake',
              ['panel-outbox'],
              'it stores events; the outbox finds them in the table',
            ),
            recognitionWing(
              'panel-outbox',
              ['intake'],
              'it sends what is stored, whoever stored it',
            ),
            recognitionWing(
              'events',
              ['intake', 'panel-outbox'],
              'the events as read and shown know neither how they came nor where they go',
            ),
            recognitionWing(
              'store',
              ['intake', 'panel-outbox', 'events'],
              'the SQL imports no wing',
            ),
            ...PLATFORM_LAYERS.map((layer) => ({
              target: `server/src/platform/${layer}`,
              from: FEATURES,
              message: `platform/${layer}/ imports no feature: name what it needs as an interface a feature implements (platform/http/guards.ts).`,
            })),
          ],
        },
      ],
    },
  },
  {
    // One home for SQL: raw statements (`.query(`) and their `QueryTypes` only in a store or
    // db/. A feature's other files call its store.
    files: ['server/src/**/*.ts'],
    ignores: [
      'server/src/**/store.ts',
      'server/src/**/store/**',
      'server/src/platform/db/**',
      'server/src/test/**',
      'server/src/**/*.test.ts',
      'server/src/**/*.bench.ts',
    ],
    rules: {
      'no-restricted-syntax': [
        'error',
        {
          selector: "CallExpression[callee.type='MemberExpression'][callee.property.name='query']",
          message:
            'SQL lives in the feature store (<feature>/store.ts or store/) or db/: call a store function.',
        },
      ],
      'no-restricted-imports': [
        'error',
        {
          paths: [
            {
              name: 'sequelize',
              importNames: ['QueryTypes'],
              message: 'QueryTypes belongs with the SQL, in a store or db/.',
            },
          ],
        },
      ],
    },
  },
  {
    // Issue 34: no text a person reads outside the catalogs: neither JSX text nor a string in
    // JSX (a child expression, a label, title, description, placeholder, aria-label, alt), in the
    // site and in the console's screens.
    files: ['web/src/**/*.tsx', 'desktop/src/renderer/**/*.tsx'],
    plugins: { i18next },
    rules: {
      'i18next/no-literal-string': [
        'error',
        {
          mode: 'jsx-only',
          'should-validate-template': true,
          'jsx-attributes': {
            include: [
              'label',
              'title',
              'description',
              'placeholder',
              'aria-label',
              'alt',
              'confirmLabel',
              'submitLabel',
              'copyLabel',
              'storedLabel',
              'nothingFoundMessage',
            ],
          },
          // Punctuation, symbols and digits alone ("—", "…", " · ") are not words to translate.
          words: {
            exclude: [
              /^[\p{P}\p{S}\p{N}\s]*$/u,
              // An example address and file formats are the same in every language.
              /^https?:\/\/[\w.:/-]+$/u,
              /^(html|json|pdf)$/u,
            ],
          },
        },
      ],
    },
  },
  {
    // jest's asymmetric matchers (expect.any, expect.stringMatching) are typed `any`.
    files: ['**/*.test.ts', '**/*.test.tsx'],
    rules: { '@typescript-eslint/no-unsafe-assignment': 'off' },
  },
);
