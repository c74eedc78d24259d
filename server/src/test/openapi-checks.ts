import type { RegisteredRoute } from '../platform/http/api.js';
import { openApiPath, pathParamNames } from '../platform/openapi/openapi.js';

const METHODS = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'];

/**
 * Structural rules of an OpenAPI 3.1 document that a schema validator does not check, plus the
 * promise that the document lists exactly the registered routes. Returns every problem found.
 */
export function openApiProblems(doc: unknown, routes: readonly RegisteredRoute[]): string[] {
  const problems: string[] = [];
  const d = doc as {
    openapi?: unknown;
    info?: { title?: unknown; version?: unknown };
    paths?: Record<string, Record<string, unknown>>;
  };
  if (d.openapi !== '3.1.0') problems.push(`openapi is ${String(d.openapi)}, not 3.1.0`);
  if (typeof d.info?.title !== 'string' || typeof d.info.version !== 'string') {
    problems.push('info.title and info.version must be strings');
  }

  // Every $ref is local and resolves.
  walk(doc, (node, where) => {
    const ref = node.$ref;
    if (ref === undefined) return;
    if (typeof ref !== 'string' || !ref.startsWith('#/')) {
      problems.push(`${where}: $ref ${JSON.stringify(ref)} is not a local reference`);
    } else if (resolvePointer(doc, ref) === undefined) {
      problems.push(`${where}: $ref ${ref} does not resolve`);
    }
  });

  const operationIds = new Set<string>();
  const seen = new Map<string, number>();
  for (const [path, item] of Object.entries(d.paths ?? {})) {
    const templated = [...path.matchAll(/\{([^}]+)\}/g)].map((m) => m[1]!);
    for (const [method, raw] of Object.entries(item)) {
      if (!METHODS.includes(method)) continue;
      const key = `${method} ${path}`;
      seen.set(key, (seen.get(key) ?? 0) + 1);
      const op = raw as {
        operationId?: string;
        responses?: Record<string, unknown>;
        parameters?: { name: string; in: string; required?: boolean }[];
      };
      if (!op.responses || Object.keys(op.responses).length === 0) {
        problems.push(`${key}: no responses`);
      }
      if (!op.operationId) problems.push(`${key}: no operationId`);
      else if (operationIds.has(op.operationId)) {
        problems.push(`${key}: operationId ${op.operationId} is not unique`);
      } else operationIds.add(op.operationId);
      const params = op.parameters ?? [];
      const pathParams = params.filter((p) => p.in === 'path').map((p) => p.name);
      if ([...pathParams].sort().join() !== [...templated].sort().join()) {
        problems.push(
          `${key}: path parameters ${pathParams.join()} ≠ template ${templated.join()}`,
        );
      }
      if (params.some((p) => p.in === 'path' && p.required !== true)) {
        problems.push(`${key}: a path parameter is not required`);
      }
      const names = params.map((p) => `${p.in}:${p.name}`);
      if (new Set(names).size !== names.length) problems.push(`${key}: duplicate parameters`);
    }
  }

  // Exactly the registered routes, each once.
  for (const route of routes) {
    const key = `${route.spec.method} ${openApiPath(route.fullPath)}`;
    const count = seen.get(key) ?? 0;
    if (count !== 1) problems.push(`${key}: appears ${count} times (expected once)`);
    seen.delete(key);
    if (pathParamNames(route.fullPath).length === 0 && key.includes('{')) {
      problems.push(`${key}: braces in a path without parameters`);
    }
  }
  for (const key of seen.keys()) problems.push(`${key}: in the document but not registered`);
  return problems;
}

type Node = Record<string, unknown>;

function walk(value: unknown, visit: (node: Node, where: string) => void, where = '#'): void {
  if (Array.isArray(value)) {
    value.forEach((v, i) => walk(v, visit, `${where}/${i}`));
  } else if (value !== null && typeof value === 'object') {
    visit(value as Node, where);
    for (const [k, v] of Object.entries(value)) walk(v, visit, `${where}/${k}`);
  }
}

export function resolvePointer(doc: unknown, ref: string): unknown {
  let node: unknown = doc;
  for (const raw of ref.slice(2).split('/')) {
    const key = raw.replace(/~1/g, '/').replace(/~0/g, '~');
    if (node === null || typeof node !== 'object' || !(key in node)) return undefined;
    node = (node as Node)[key];
  }
  return node;
}
