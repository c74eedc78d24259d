import type { OpenApiDocument, Operation, Parameter, Ref, ResponseObject } from './openapi.js';
import type { JsonSchema } from './json-schema.js';

/**
 * The browsable API page, rendered on the server from the OpenAPI document: plain HTML with
 * one external stylesheet, no script and no inline style, so it works offline and under the
 * strict Content-Security-Policy helmet sets.
 */

const ESCAPES: Record<string, string> = {
  '&': '&amp;',
  '<': '&lt;',
  '>': '&gt;',
  '"': '&quot;',
  "'": '&#39;',
};

export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => ESCAPES[c]!);
}

const h = escapeHtml;

export function renderDocsPage(doc: OpenApiDocument, links: { json: string; css: string }): string {
  const groups = new Map<string, { method: string; path: string; op: Operation }[]>();
  for (const [path, item] of Object.entries(doc.paths)) {
    for (const [method, op] of Object.entries(item)) {
      for (const tag of op.tags?.length ? op.tags : ['other']) {
        const list = groups.get(tag) ?? [];
        list.push({ method, path, op });
        groups.set(tag, list);
      }
    }
  }
  const tags = [...groups.keys()].sort();
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${h(doc.info.title)}</title>
<link rel="stylesheet" href="${h(links.css)}">
</head>
<body>
<header>
<h1>${h(doc.info.title)} <span class="version">${h(doc.info.version)}</span></h1>
<p>${h(doc.info.description)}</p>
<p>Machine-readable: <a href="${h(links.json)}">OpenAPI 3.1 document</a>.</p>
<nav><ul>${tags.map((t) => `<li><a href="#tag-${h(slug(t))}">${h(t)}</a></li>`).join('')}</ul></nav>
</header>
<main>
${tags.map((tag) => section(tag, groups.get(tag)!)).join('\n')}
<section id="components">
<h2>Shared schemas</h2>
${Object.entries(doc.components.schemas)
  .map(
    ([name, schema]) =>
      `<details id="schema-${h(name)}"><summary><code>${h(name)}</code></summary>${pre(schema)}</details>`,
  )
  .join('\n')}
</section>
</main>
</body>
</html>
`;
}

function section(tag: string, ops: { method: string; path: string; op: Operation }[]): string {
  return `<section id="tag-${h(slug(tag))}">
<h2>${h(tag)}</h2>
${ops.map(({ method, path, op }) => operation(method, path, op)).join('\n')}
</section>`;
}

function operation(method: string, path: string, op: Operation): string {
  return `<details class="op" id="op-${h(op.operationId)}">
<summary><span class="method ${h(method)}">${h(method.toUpperCase())}</span> <code class="path">${h(path)}</code> <span class="summary">${h(op.summary)}</span></summary>
<p class="access">${h(op.description)}</p>
${op.parameters?.length ? parameters(op.parameters) : ''}
${op.requestBody ? requestBody(op.requestBody) : ''}
<h4>Responses</h4>
<dl class="responses">${Object.entries(op.responses)
    .map(([status, r]) => responseItem(status, r))
    .join('')}</dl>
</details>`;
}

function parameters(list: Parameter[]): string {
  const rows = list
    .map(
      (p) =>
        `<tr><td><code>${h(p.name)}</code></td><td>${h(p.in)}</td><td>${p.required ? 'yes' : 'no'}</td><td>${h(describe(p.schema))}</td></tr>`,
    )
    .join('');
  return `<h4>Parameters</h4>
<table><thead><tr><th>name</th><th>in</th><th>required</th><th>schema</th></tr></thead><tbody>${rows}</tbody></table>`;
}

function requestBody(body: NonNullable<Operation['requestBody']>): string {
  return `<h4>Request body${body.required ? '' : ' (optional)'}</h4>
${Object.entries(body.content)
  .map(([type, media]) => `<p><code>${h(type)}</code></p>${pre(media.schema)}`)
  .join('')}`;
}

function responseItem(status: string, response: ResponseObject | Ref): string {
  if ('$ref' in response) {
    const name = response.$ref.split('/').pop()!;
    return `<dt>${h(status)}</dt><dd>error body (<a href="#schema-ErrorBody">ErrorBody</a>): ${h(name)}</dd>`;
  }
  const content = Object.entries(response.content ?? {})
    .map(([type, media]) => `<p><code>${h(type)}</code></p>${pre(media.schema)}`)
    .join('');
  return `<dt>${h(status)}</dt><dd>${h(response.description)}${content || ' (no content)'}</dd>`;
}

/** A readable outline of the schema, with the exact JSON Schema one click away. */
function pre(schema: JsonSchema): string {
  return `${outline(schema)}<details class="json"><summary>JSON Schema</summary><pre>${h(JSON.stringify(schema, null, 2))}</pre></details>`;
}

function outline(schema: JsonSchema, depth = 0): string {
  const properties = schema.properties as Record<string, JsonSchema> | undefined;
  const required = Array.isArray(schema.required) ? (schema.required as string[]) : [];
  const items = schema.items as JsonSchema | undefined;
  const variants = (schema.anyOf ?? schema.oneOf) as JsonSchema[] | undefined;
  if (depth > 6) return '';
  if (properties) {
    const rows = Object.entries(properties).map(
      ([name, prop]) =>
        `<li><code>${h(name)}</code>${required.includes(name) ? '' : '<span class="opt">?</span>'}: ${h(describe(prop))}${outline(prop, depth + 1)}</li>`,
    );
    return rows.length ? `<ul class="outline">${rows.join('')}</ul>` : '';
  }
  if (items) return outline(items, depth + 1);
  if (variants) return variants.map((v) => outline(v, depth + 1)).join('');
  return '';
}

/** A one-line reading of a parameter's schema: `integer 1…200, default 50`. */
export function describe(schema: JsonSchema): string {
  const parts: string[] = [];
  if (typeof schema.$ref === 'string') parts.push(schema.$ref.split('/').pop()!);
  const variants = (schema.anyOf ?? schema.oneOf) as JsonSchema[] | undefined;
  if (variants) parts.push(variants.map(describe).join(' | '));
  if (schema.type === 'array' && schema.items) {
    parts.push(`array of ${describe(schema.items as JsonSchema)}`);
    return parts.join(' ');
  }
  if (Array.isArray(schema.type)) parts.push(schema.type.join(' | '));
  else if (typeof schema.type === 'string') parts.push(schema.type);
  if (typeof schema.format === 'string') parts.push(`(${schema.format})`);
  if (Array.isArray(schema.enum)) parts.push(`one of ${schema.enum.map(String).join(', ')}`);
  // zod bounds every integer by the safe range; saying so on each field is only noise.
  const bound = (v: unknown) =>
    typeof v !== 'number' || Math.abs(v) >= Number.MAX_SAFE_INTEGER ? undefined : v;
  const min = bound(schema.minimum ?? schema.minLength);
  const max = bound(schema.maximum ?? schema.maxLength);
  if (min !== undefined || max !== undefined) {
    parts.push(`${min === undefined ? '' : String(min)}…${max === undefined ? '' : String(max)}`);
  }
  if (schema.default !== undefined) parts.push(`default ${JSON.stringify(schema.default)}`);
  return parts.join(' ') || 'any';
}

function slug(text: string): string {
  return text.toLowerCase().replace(/[^a-z0-9]+/g, '-');
}

export const DOCS_CSS = `:root { color-scheme: light dark; font-family: system-ui, sans-serif; }
body { margin: 0 auto; max-width: 72rem; padding: 1rem 1.5rem 4rem; line-height: 1.45; }
h1 .version { font-size: 0.6em; font-weight: normal; opacity: 0.7; }
nav ul { list-style: none; padding: 0; display: flex; flex-wrap: wrap; gap: 0.25rem 1rem; }
section { margin-top: 2rem; }
details.op { border: 1px solid #8885; border-radius: 6px; margin: 0.5rem 0; padding: 0.4rem 0.75rem; }
details.op > summary { cursor: pointer; }
.method { display: inline-block; min-width: 4.5em; font-weight: bold; font-family: monospace; }
.method.get { color: #1a7f37; } .method.post { color: #0969da; } .method.put { color: #9a6700; }
.method.patch { color: #8250df; } .method.delete { color: #cf222e; }
.path { font-weight: bold; }
.access { font-style: italic; }
table { border-collapse: collapse; } th, td { border: 1px solid #8885; padding: 0.2rem 0.5rem; text-align: left; }
pre { background: #8881; padding: 0.5rem; overflow-x: auto; max-height: 24rem; font-size: 0.85em; }
dt { font-weight: bold; margin-top: 0.5rem; }
ul.outline { margin: 0.2rem 0; padding-left: 1.25rem; font-size: 0.92em; }
.opt { opacity: 0.6; }
details.json > summary { cursor: pointer; font-size: 0.85em; opacity: 0.8; }
`;
