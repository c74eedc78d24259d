import { z } from 'zod';
import type { AppContext } from '../context.js';
import type { Api } from '../http/api.js';
import { DOCS_CSS, renderDocsPage } from './html.js';
import { buildOpenApi, type OpenApiDocument } from './openapi.js';

/** What `GET /api/docs/openapi.json` answers: checked loosely, the document describes itself. */
export const openApiShape = z.looseObject({
  openapi: z.literal('3.1.0'),
  info: z.looseObject({ title: z.string(), version: z.string() }),
  paths: z.record(z.string(), z.record(z.string(), z.unknown())),
  components: z.record(z.string(), z.unknown()),
});

/**
 * Item 8: the API documentation. Public, like the API surface it describes (no data, no
 * secrets; the desktop console and outside tests read it before signing in). Registered last,
 * and the document is built on first request, so it lists every route — these included.
 */
export function registerDocsRoutes(api: Api, ctx: AppContext): void {
  const tags = ['docs'];
  const base = '/api/docs';
  let built: { doc: OpenApiDocument; json: string; html: string } | undefined;
  const document = () => {
    if (!built) {
      const doc = buildOpenApi(api.routes, {
        title: 'svc central service API',
        version: ctx.version,
      });
      built = {
        doc,
        json: JSON.stringify(doc),
        html: renderDocsPage(doc, { json: `${base}/openapi.json`, css: `${base}/docs.css` }),
      };
    }
    return built;
  };

  api.add(
    {
      method: 'get',
      path: '/docs/openapi.json',
      summary: 'This API as an OpenAPI 3.1 document',
      tags,
      access: { kind: 'public' },
      responses: { 200: openApiShape },
    },
    (_input, _req, res) => {
      res.type('application/json').send(document().json);
    },
  );

  api.add(
    {
      method: 'get',
      path: '/docs',
      summary: 'Browsable API documentation',
      tags,
      access: { kind: 'public' },
      responses: { 200: { mediaType: 'text/html' } },
    },
    (_input, _req, res) => {
      res.type('text/html').send(document().html);
    },
  );

  api.add(
    {
      method: 'get',
      path: '/docs/docs.css',
      summary: 'Stylesheet of the documentation page',
      tags,
      access: { kind: 'public' },
      responses: { 200: { mediaType: 'text/css' } },
    },
    (_input, _req, res) => {
      res.type('text/css').send(DOCS_CSS);
    },
  );
}
