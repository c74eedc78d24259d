import { randomUUID } from 'node:crypto';
import sharp from 'sharp';
import { z } from 'zod';
import type { RegisteredRoute } from '../platform/http/api.js';
import type { CallOptions } from './route-calls.js';

/**
 * A valid request body for any registered route, synthesized from its own zod schema: the
 * cross-cutting tests must get past input validation to prove the rule they test (an IDOR
 * answer of 400 would prove nothing). Generated values only — no real personal data.
 */

type Json = Record<string, unknown>;

/** Strings tried in turn for a field the schema keeps refusing (refinements are invisible). */
const STRING_CANDIDATES = [
  () => 'Sample1',
  () => 'http://192.0.2.10:8080',
  () => `sample-${randomUUID().slice(0, 8)}`,
  () => randomUUID(),
  () => new Date('2026-01-02T03:04:05.000Z').toISOString(),
  () => 'sample@example.com',
  () => 'a',
  () => '1',
  () => 'S',
];

let jpeg: Buffer | undefined;

/** A small real JPEG (generated), for photo uploads. */
export async function sampleJpeg(): Promise<Buffer> {
  jpeg ??= await sharp({
    create: { width: 160, height: 200, channels: 3, background: { r: 90, g: 120, b: 150 } },
  })
    .jpeg()
    .toBuffer();
  return jpeg;
}

/** A body that passes the route's body schema, or a real image for an upload route. */
export async function sampleBody(
  route: RegisteredRoute,
): Promise<Pick<CallOptions, 'json' | 'raw'>> {
  const { spec } = route;
  const image = spec.rawBody?.find((t) => t === 'image/jpeg');
  if (image) return { raw: { type: image, bytes: await sampleJpeg() } };
  if (!spec.body) return {};
  return { json: sampleFor(spec.body) };
}

export function sampleFor(schema: z.ZodType): unknown {
  const json = z.toJSONSchema(schema, {
    target: 'draft-2020-12',
    io: 'input',
    unrepresentable: 'any',
  }) as Json;
  const defs = (json.$defs ?? {}) as Record<string, Json>;
  const value = fromSchema(json, defs, 0);
  // Refinements (URLs, windows) are not in the JSON Schema: retry the refused fields.
  const tries = new Map<string, number>();
  for (let round = 0; round < 40; round++) {
    const result = schema.safeParse(value);
    if (result.success) return value;
    let changed = false;
    for (const issue of result.error.issues) {
      const key = issue.path.join('.');
      const n = tries.get(key) ?? 0;
      if (n >= STRING_CANDIDATES.length || issue.path.length === 0) continue;
      tries.set(key, n + 1);
      changed = setAt(value, issue.path, STRING_CANDIDATES[n]!()) || changed;
    }
    if (!changed) break;
  }
  return value;
}

function setAt(root: unknown, path: PropertyKey[], value: unknown): boolean {
  let node = root as Json;
  for (const key of path.slice(0, -1)) {
    const next = node[key as string];
    if (next === null || typeof next !== 'object') return false;
    node = next as Json;
  }
  node[path[path.length - 1] as string] = value;
  return true;
}

function fromSchema(schema: Json, defs: Record<string, Json>, depth: number): unknown {
  if (depth > 8) return null;
  if (typeof schema.$ref === 'string') {
    const target = schema.$ref === '#' ? undefined : defs[schema.$ref.replace('#/$defs/', '')];
    return target ? fromSchema(target, defs, depth + 1) : null;
  }
  if ('const' in schema) return schema.const;
  if (Array.isArray(schema.enum)) return schema.enum[0];
  const variants = (schema.anyOf ?? schema.oneOf) as Json[] | undefined;
  if (variants) {
    const nonNull = variants.find((v) => v.type !== 'null') ?? variants[0]!;
    return fromSchema(nonNull, defs, depth + 1);
  }
  if (Array.isArray(schema.allOf)) {
    return fromSchema(Object.assign({}, ...(schema.allOf as Json[])) as Json, defs, depth + 1);
  }
  const type = Array.isArray(schema.type)
    ? (schema.type as string[]).find((t) => t !== 'null')
    : (schema.type as string | undefined);
  switch (type) {
    case 'object': {
      const properties = (schema.properties ?? {}) as Record<string, Json>;
      const required = (schema.required ?? []) as string[];
      return Object.fromEntries(
        required.map((name) => [name, fromSchema(properties[name] ?? {}, defs, depth + 1)]),
      );
    }
    case 'array': {
      const n = typeof schema.minItems === 'number' ? schema.minItems : 0;
      return Array.from({ length: n }, () =>
        fromSchema((schema.items ?? {}) as Json, defs, depth + 1),
      );
    }
    case 'integer':
    case 'number': {
      const min = typeof schema.minimum === 'number' ? schema.minimum : 1;
      return Math.max(
        min,
        typeof schema.exclusiveMinimum === 'number' ? schema.exclusiveMinimum + 1 : min,
      );
    }
    case 'boolean':
      return true;
    case 'null':
      return null;
    case 'string':
      return sampleString(schema);
    default:
      return 'Sample1';
  }
}

function sampleString(schema: Json): string {
  switch (schema.format) {
    case 'uuid':
      return randomUUID();
    case 'date-time':
      return new Date('2026-01-02T03:04:05.000Z').toISOString();
    case 'email':
      return 'sample@example.com';
    case 'uri':
    case 'url':
      return 'http://192.0.2.10:8080';
  }
  const min = typeof schema.minLength === 'number' ? schema.minLength : 1;
  const max = typeof schema.maxLength === 'number' ? schema.maxLength : 64;
  const pattern = typeof schema.pattern === 'string' ? new RegExp(schema.pattern, 'u') : undefined;
  for (const make of STRING_CANDIDATES) {
    let s = make();
    if (s.length < min) s = s.padEnd(min, 'x');
    if (s.length <= max && (!pattern || pattern.test(s))) return s;
  }
  return 'x'.repeat(Math.max(min, 1));
}
