import { z } from 'zod';

export type JsonSchema = Record<string, unknown>;
export type SchemaComponents = Record<string, JsonSchema>;

const COMPONENT_NAME = /[^A-Za-z0-9._-]/g;

/**
 * One zod schema as a JSON Schema (2020-12, the dialect of OpenAPI 3.1) through zod's own
 * converter. Definitions it needs (recursive or registered schemas land in `$defs`) move to
 * `components.schemas` under `name`-prefixed keys: a `#/$defs/…` reference inside a schema
 * embedded in the document would otherwise point at the document's root, not the schema's.
 */
export function toJsonSchema(
  schema: z.ZodType,
  io: 'input' | 'output',
  name: string,
  components: SchemaComponents,
): JsonSchema {
  const converted = z.toJSONSchema(schema, {
    target: 'draft-2020-12',
    io,
    unrepresentable: 'any',
  }) as JsonSchema;
  delete converted.$schema;
  const defs = (converted.$defs ?? {}) as Record<string, JsonSchema>;
  delete converted.$defs;

  const prefix = name.replace(COMPONENT_NAME, '_');
  const renamed = new Map<string, string>();
  for (const key of Object.keys(defs)) {
    renamed.set(
      `#/$defs/${key}`,
      unique(`${prefix}_${key.replace(COMPONENT_NAME, '_')}`, components),
    );
  }
  // A schema that refers to itself as a whole ('#') becomes a component too.
  const selfRef = refersTo(converted, '#') || Object.values(defs).some((d) => refersTo(d, '#'));
  const selfName = selfRef ? unique(prefix, components) : undefined;
  if (selfName) renamed.set('#', selfName);

  const rewrite = (value: unknown): unknown => {
    if (Array.isArray(value)) return value.map(rewrite);
    if (value === null || typeof value !== 'object') return value;
    const out: JsonSchema = {};
    for (const [k, v] of Object.entries(value)) {
      out[k] =
        k === '$ref' && typeof v === 'string' && renamed.has(v)
          ? `#/components/schemas/${renamed.get(v)!}`
          : rewrite(v);
    }
    return out;
  };
  for (const [key, def] of Object.entries(defs)) {
    components[renamed.get(`#/$defs/${key}`)!] = rewrite(def) as JsonSchema;
  }
  const result = rewrite(converted) as JsonSchema;
  if (!selfName) return result;
  components[selfName] = result;
  return { $ref: `#/components/schemas/${selfName}` };
}

function unique(name: string, components: SchemaComponents): string {
  let candidate = name;
  for (let n = 2; candidate in components; n++) candidate = `${name}_${n}`;
  // Reserve it now, so two definitions of one schema never get the same name.
  components[candidate] = {};
  return candidate;
}

function refersTo(value: unknown, ref: string): boolean {
  if (Array.isArray(value)) return value.some((v) => refersTo(v, ref));
  if (value === null || typeof value !== 'object') return false;
  return Object.entries(value).some(([k, v]) => (k === '$ref' && v === ref) || refersTo(v, ref));
}
