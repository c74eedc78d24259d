import { validate, compileErrors } from '@readme/openapi-parser';
import { z } from 'zod';
import { DIALECTS } from '../../test/dialects.js';
import { suiteServer } from '../../test/suite.js';
import { openApiProblems } from '../../test/openapi-checks.js';
import { openApiPath, type OpenApiDocument } from './openapi.js';
import { escapeHtml } from './html.js';

describe.each(DIALECTS)('API documentation (%s)', (dialect) => {
  let doc: OpenApiDocument;
  const suite = suiteServer(dialect);
  beforeAll(async () => {
    const res = await fetch(`${suite.server.url}/api/docs/openapi.json`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^application\/json/);
    doc = (await res.json()) as OpenApiDocument;
  });

  test('GET /api/docs/openapi.json is a valid OpenAPI 3.1 document of every registered route', async () => {
    expect(openApiProblems(doc, suite.server.api.routes)).toEqual([]);
    const result = await validate(structuredClone(doc) as never);
    if (!result.valid) throw new Error(compileErrors(result));
    // The documentation routes are registered too, so they describe themselves.
    for (const path of ['/api/docs', '/api/docs/openapi.json', '/api/docs/docs.css']) {
      expect(doc.paths[path]?.get).toBeDefined();
    }
    expect(doc.info.version).toBe(suite.server.ctx.version);
  });

  test('schemas are generated from the registered zod schemas, not written by hand', () => {
    const convert = (schema: z.ZodType, io: 'input' | 'output') => {
      const out = z.toJSONSchema(schema, {
        target: 'draft-2020-12',
        io,
        unrepresentable: 'any',
      }) as Record<string, unknown>;
      delete out.$schema;
      return out;
    };
    let compared = 0;
    for (const { spec, fullPath } of suite.server.api.routes) {
      const op = doc.paths[openApiPath(fullPath)]![spec.method]!;
      const expected = spec.body && convert(spec.body, 'input');
      // Schemas with definitions were rewritten to components; the rest are verbatim.
      if (expected && !('$defs' in expected)) {
        expect(op.requestBody?.content['application/json']?.schema).toEqual(expected);
        compared++;
      }
      const ok = spec.responses[200];
      if (ok instanceof z.ZodType) {
        const out = convert(ok, 'output');
        if (!('$defs' in out)) {
          const response = op.responses['200'] as {
            content: Record<string, { schema: unknown }>;
          };
          expect(response.content['application/json']!.schema).toEqual(out);
          compared++;
        }
      }
    }
    expect(compared).toBeGreaterThan(3);
  });

  test('GET /api/docs is a self-contained page listing every operation', async () => {
    const res = await fetch(`${suite.server.url}/api/docs`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^text\/html/);
    const html = await res.text();
    for (const { spec, fullPath } of suite.server.api.routes) {
      expect(html).toContain(escapeHtml(openApiPath(fullPath)));
      expect(html).toContain(escapeHtml(spec.summary));
    }
    // Offline and CSP-friendly: no script at all, no inline style, nothing from elsewhere.
    expect(html).not.toMatch(/<script/i);
    expect(html).not.toMatch(/<style|\sstyle=/i);
    expect(html).not.toMatch(/(src|href)="(https?:)?\/\//i);
    expect(html).toContain('href="/api/docs/docs.css"');
    expect(res.headers.get('content-security-policy')).toMatch(/script-src 'self'/);
  });

  test('the page stylesheet is served as CSS', async () => {
    const res = await fetch(`${suite.server.url}/api/docs/docs.css`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^text\/css/);
    expect(await res.text()).toMatch(/details\.op/);
  });

  test('the documentation needs no session', async () => {
    for (const path of ['/api/docs', '/api/docs/openapi.json', '/api/docs/docs.css']) {
      expect((await fetch(suite.server.url + path)).status).toBe(200);
    }
  });
});

describe('escapeHtml', () => {
  test('neutralizes markup in summaries and schemas', () => {
    expect(escapeHtml(`<a href="x">'&'</a>`)).toBe(
      '&lt;a href=&quot;x&quot;&gt;&#39;&amp;&#39;&lt;/a&gt;',
    );
  });
});
