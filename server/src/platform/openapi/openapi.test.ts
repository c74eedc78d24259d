import { validate, compileErrors } from '@readme/openapi-parser';
import { z } from 'zod';
import { errorBody, idParams, pageQuery, personCreate } from '@svc/shared';
import type { RegisteredRoute, RouteSpec } from '../http/api.js';
import { openApiProblems, resolvePointer } from '../../test/openapi-checks.js';
import {
  buildOpenApi,
  type OpenApiDocument,
  type Operation,
  type ResponseObject,
} from './openapi.js';

type Spec = RouteSpec<z.ZodType | undefined, z.ZodType | undefined, z.ZodType | undefined>;

function route(spec: Partial<Spec> & Pick<Spec, 'method' | 'path'>): RegisteredRoute {
  return {
    spec: { summary: 's', access: { kind: 'public' }, responses: { 200: 'empty' }, ...spec },
    fullPath: `/api${spec.path}`,
  };
}

interface TreeNode {
  name: string;
  children: TreeNode[];
}
const tree: z.ZodType<TreeNode> = z.object({
  name: z.string(),
  get children() {
    return z.array(tree);
  },
});

const ROUTES: RegisteredRoute[] = [
  route({
    method: 'get',
    path: '/things',
    tags: ['things'],
    access: { kind: 'session' },
    query: pageQuery.extend({ q: z.string().max(10).optional() }),
    responses: { 200: z.object({ items: z.array(tree), total: z.number().int() }) },
  }),
  route({
    method: 'patch',
    path: '/things/:id',
    tags: ['things'],
    access: { kind: 'session' },
    params: idParams,
    body: personCreate,
    resource: 'person',
    responses: { 200: tree },
  }),
  route({
    method: 'put',
    path: '/things/:id/photo',
    access: { kind: 'session' },
    params: idParams,
    rawBody: ['image/jpeg', 'image/png'],
    bodyLimit: false,
    responses: { 200: z.object({ photoSha256: z.string() }) },
  }),
  route({
    method: 'get',
    path: '/things/:id/photo',
    access: { kind: 'session-or-trusted' },
    responses: { 200: { mediaType: 'image/jpeg' } },
  }),
  route({
    method: 'post',
    path: '/machines/:sn/ping',
    access: { kind: 'device' },
    responses: { 204: 'empty', 409: errorBody },
  }),
  route({
    method: 'post',
    path: '/configure',
    access: { kind: 'trusted-session', minRole: 'admin' },
    body: z.object({ ids: z.array(z.string()).optional() }),
    responses: { 200: z.object({ at: z.date(), n: z.bigint() }) },
  }),
  route({ method: 'post', path: '/auth/login', responses: { 200: z.object({}) } }),
];

describe('OpenAPI generation from registered routes', () => {
  let doc: OpenApiDocument;
  const op = (path: string, method: string) =>
    (doc.paths[path] as Record<string, Operation>)[method]!;
  /** The JSON schema of an operation's 200 answer. */
  const answer = <T>(path: string, method: string): T =>
    (op(path, method).responses['200'] as ResponseObject).content!['application/json']!
      .schema as unknown as T;
  beforeAll(() => {
    doc = buildOpenApi(ROUTES, { title: 't', version: '1.2.3' });
  });

  test('the document is a valid OpenAPI 3.1 document with every route exactly once', async () => {
    expect(openApiProblems(doc, ROUTES)).toEqual([]);
    const result = await validate(structuredClone(doc) as never);
    if (!result.valid) throw new Error(compileErrors(result));
  });

  test('the checks do catch a broken document', async () => {
    const broken = structuredClone(doc) as unknown as {
      paths: Record<string, Record<string, { responses?: unknown; parameters?: unknown[] }>>;
    };
    // OpenAPI 3.1 made `responses` optional: only our own structural check demands it.
    delete broken.paths['/api/things']!.get!.responses;
    expect(openApiProblems(broken, ROUTES)).toContain('get /api/things: no responses');
    broken.paths['/api/things']!.get!.parameters = [{ name: 'x', in: 'nowhere' }];
    expect((await validate(broken as never)).valid).toBe(false);
  });

  test('Express path parameters become templates with the params schema', () => {
    const patch = op('/api/things/{id}', 'patch');
    expect(patch.parameters).toEqual([
      {
        name: 'id',
        in: 'path',
        required: true,
        schema: expect.objectContaining({ format: 'uuid' }),
      },
    ]);
    // No params schema: still declared, as a string.
    expect(op('/api/things/{id}/photo', 'get').parameters).toEqual([
      { name: 'id', in: 'path', required: true, schema: { type: 'string' } },
    ]);
    expect(doc.paths['/api/machines/{sn}/ping']).toBeDefined();
  });

  test('query schemas become one parameter per field, defaults optional', () => {
    const params = op('/api/things', 'get').parameters!;
    expect(params.map((p) => [p.name, p.required])).toEqual([
      ['page', false],
      ['pageSize', false],
      ['q', false],
    ]);
    expect(params[1]!.schema).toMatchObject({ type: 'integer', maximum: 200, default: 50 });
  });

  test('request bodies come from the zod schema (input side), raw bodies by media type', () => {
    const body = op('/api/things/{id}', 'patch').requestBody!;
    expect(body.required).toBe(true);
    const expected = z.toJSONSchema(personCreate, {
      target: 'draft-2020-12',
      io: 'input',
      unrepresentable: 'any',
    }) as Record<string, unknown>;
    delete expected.$schema;
    expect(body.content['application/json']!.schema).toEqual(expected);

    const raw = op('/api/things/{id}/photo', 'put').requestBody!;
    expect(Object.keys(raw.content)).toEqual(['image/jpeg', 'image/png']);
    expect(raw.content['image/png']!.schema).toEqual({
      type: 'string',
      contentMediaType: 'image/png',
    });
    // A body that may be `{}` may be left out.
    expect(op('/api/configure', 'post').requestBody!.required).toBe(false);
  });

  test('responses: schemas, empty, media types; unrepresentable types are "any"', () => {
    expect(op('/api/machines/{sn}/ping', 'post').responses['204']).toEqual({
      description: 'No Content',
    });
    expect(op('/api/things/{id}/photo', 'get').responses['200']).toEqual({
      description: 'OK',
      content: { 'image/jpeg': { schema: { type: 'string', contentMediaType: 'image/jpeg' } } },
    });
    const configure = answer<{ properties: Record<string, unknown> }>('/api/configure', 'post');
    expect(configure.properties).toEqual({ at: {}, n: {} });
  });

  test('the PROTOCOL §0 error body is shared and fitting error statuses are added', () => {
    expect(doc.components.schemas.ErrorBody).toMatchObject({
      type: 'object',
      required: ['error'],
    });
    const ping = op('/api/machines/{sn}/ping', 'post').responses;
    expect(ping['409']).toMatchObject({
      content: { 'application/json': { schema: { $ref: '#/components/schemas/ErrorBody' } } },
    });
    expect(ping['401']).toEqual({ $ref: '#/components/responses/Unauthorized' });
    expect(ping.default).toEqual({ $ref: '#/components/responses/Error' });
    const patch = op('/api/things/{id}', 'patch').responses;
    for (const status of ['400', '401', '403', '404', '413', '415', '503', 'default']) {
      expect(patch[status]).toBeDefined();
    }
    expect(op('/api/things', 'get').responses['404']).toBeUndefined();
  });

  test('recursive schemas move to components and every reference resolves', () => {
    const list = answer<{ properties: { items: { items: { $ref: string } } } }>(
      '/api/things',
      'get',
    );
    const ref = list.properties.items.items.$ref;
    expect(ref).toMatch(/^#\/components\/schemas\//);
    expect(resolvePointer(doc, ref)).toMatchObject({ type: 'object' });
    // The whole answer refers to itself: it becomes a component.
    const selfRef = answer<{ $ref: string }>('/api/things/{id}', 'patch').$ref;
    const component = resolvePointer(doc, selfRef) as {
      properties: { children: { items: { $ref: string } } };
    };
    expect(component.properties.children.items.$ref).toBe(selfRef);
  });

  test.each([
    ['/api/things', 'get', [{ sessionCookie: [] }]],
    ['/api/things/{id}', 'patch', [{ sessionCookie: [], csrfToken: [] }]],
    ['/api/things/{id}/photo', 'get', [{ sessionCookie: [] }, {}]],
    ['/api/machines/{sn}/ping', 'post', [{ deviceKey: [] }]],
    ['/api/configure', 'post', [{ sessionCookie: [], csrfToken: [] }]],
    ['/api/auth/login', 'post', [{ csrfToken: [] }]],
  ])('%s %s: security follows the access rule', (path, method, security) => {
    expect(op(path, method).security).toEqual(security);
  });

  test('access rules are described in words and kept as an extension', () => {
    expect(op('/api/things/{id}/photo', 'get').description).toMatch(/TRUSTED_NETWORKS/);
    expect(op('/api/configure', 'post').description).toMatch(/role admin.*TRUSTED_NETWORKS only/);
    expect(op('/api/things/{id}', 'patch')['x-svc-access']).toEqual({ kind: 'session' });
    expect(op('/api/things/{id}', 'patch')['x-svc-resource']).toBe('person');
  });

  test('a route registered twice is refused', () => {
    expect(() => buildOpenApi([ROUTES[0]!, ROUTES[0]!], { title: 't', version: '1' })).toThrow(
      /registered twice/,
    );
  });
});
