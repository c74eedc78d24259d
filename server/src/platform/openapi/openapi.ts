import { STATUS_CODES } from 'node:http';
import { z } from 'zod';
import { errorBody, SESSION_COOKIE } from '@svc/shared';
import type { Access, RegisteredRoute } from '../http/api.js';
import { accessText } from './access.js';
import { toJsonSchema, type JsonSchema, type SchemaComponents } from './json-schema.js';

/**
 * The OpenAPI 3.1 document, generated from `api.routes`: the same zod schemas the server
 * validates with (PROTOCOL §7 asks for no hand-written duplicate). Only the envelope —
 * security schemes, the shared error responses — is written here.
 */

type Method = RegisteredRoute['spec']['method'];
type ResponseSpec = RegisteredRoute['spec']['responses'][number];

export interface Parameter {
  name: string;
  in: 'path' | 'query';
  required: boolean;
  schema: JsonSchema;
  description?: string;
  style?: 'form';
  explode?: boolean;
}

export interface MediaTypeObject {
  schema: JsonSchema;
}

export interface ResponseObject {
  description: string;
  content?: Record<string, MediaTypeObject>;
}

export type Ref = { $ref: string };

export interface Operation {
  operationId: string;
  summary: string;
  description: string;
  tags?: string[];
  security: Record<string, string[]>[];
  parameters?: Parameter[];
  requestBody?: { required: boolean; content: Record<string, MediaTypeObject> };
  responses: Record<string, ResponseObject | Ref>;
  /** The route's access rule as registered, for tools and the browsable page. */
  'x-svc-access': Access;
  /** The kind of row `:id` names (organization scoping applies). */
  'x-svc-resource'?: string;
}

export interface OpenApiDocument {
  openapi: '3.1.0';
  info: { title: string; version: string; description: string };
  tags: { name: string }[];
  paths: Record<string, Partial<Record<Method, Operation>>>;
  components: {
    schemas: SchemaComponents;
    responses: Record<string, ResponseObject>;
    securitySchemes: Record<string, Record<string, string>>;
  };
}

export const ERROR_SCHEMA = 'ErrorBody';
const ERROR_REF = { $ref: `#/components/schemas/${ERROR_SCHEMA}` };

/** The PROTOCOL §0 error responses every operation may answer with, by when they apply. */
const ERROR_RESPONSES: Record<string, { status: string; description: string }> = {
  InvalidInput: { status: '400', description: 'Invalid input; `fields` names each problem.' },
  Unauthorized: { status: '401', description: 'No or expired session or credential.' },
  Forbidden: {
    status: '403',
    description: 'Not allowed: role, network, CSRF token or `password_change_required`.',
  },
  NotFound: { status: '404', description: 'No such row in your organization.' },
  TooLarge: { status: '413', description: 'The request body is too large.' },
  WrongMediaType: { status: '415', description: 'The body is not in an accepted media type.' },
  Unavailable: { status: '503', description: 'The database is unreachable; retry later.' },
  Error: { status: 'default', description: 'Any other failure, with the PROTOCOL §0 body.' },
};

const SECURITY_SCHEMES = {
  sessionCookie: {
    type: 'apiKey',
    in: 'cookie',
    name: SESSION_COOKIE,
    description: 'The administrator session cookie set by POST /api/auth/login.',
  },
  csrfToken: {
    type: 'apiKey',
    in: 'header',
    name: 'X-CSRF-Token',
    description:
      'From GET /api/auth/csrf; required on every state-changing request that carries the session cookie, and on sign-in.',
  },
  terminalToken: {
    type: 'http',
    scheme: 'bearer',
    description: 'The token the central service issued to a terminal when configuring it.',
  },
  deviceKey: {
    type: 'http',
    scheme: 'bearer',
    description: 'The recognition device key, shown once at registration or rotation.',
  },
};

const STATE_CHANGING = new Set<Method>(['post', 'put', 'patch', 'delete']);
const PATH_PARAM = /:([A-Za-z_$][\w$]*)/g;

/** Express `/people/:id` → OpenAPI `/people/{id}`. */
export function openApiPath(expressPath: string): string {
  return expressPath.replace(PATH_PARAM, '{$1}');
}

export function pathParamNames(expressPath: string): string[] {
  return [...expressPath.matchAll(PATH_PARAM)].map((m) => m[1]!);
}

export function buildOpenApi(
  routes: readonly RegisteredRoute[],
  info: { title: string; version: string },
): OpenApiDocument {
  const schemas: SchemaComponents = {
    [ERROR_SCHEMA]: toJsonSchema(errorBody, 'output', ERROR_SCHEMA, {}),
  };
  const doc: OpenApiDocument = {
    openapi: '3.1.0',
    info: {
      ...info,
      description:
        'The central service API, generated from the zod schemas the server validates with. ' +
        'Every error has the body {"error":{"code","message","fields"?}} (PROTOCOL §0). ' +
        'State-changing requests with the session cookie send X-CSRF-Token.',
    },
    tags: [],
    paths: {},
    components: {
      schemas,
      responses: Object.fromEntries(
        Object.entries(ERROR_RESPONSES).map(([name, r]) => [
          name,
          { description: r.description, content: { 'application/json': { schema: ERROR_REF } } },
        ]),
      ),
      securitySchemes: SECURITY_SCHEMES,
    },
  };
  const usedIds = new Set<string>();
  const tags = new Set<string>();
  for (const route of routes) {
    const path = openApiPath(route.fullPath);
    const item = (doc.paths[path] ??= {});
    if (item[route.spec.method]) {
      throw new Error(`${route.spec.method.toUpperCase()} ${route.fullPath} is registered twice`);
    }
    item[route.spec.method] = operation(route, uniqueId(operationId(route), usedIds), schemas);
    for (const tag of route.spec.tags ?? []) tags.add(tag);
  }
  doc.tags = [...tags].sort().map((name) => ({ name }));
  return doc;
}

function operation(route: RegisteredRoute, id: string, schemas: SchemaComponents): Operation {
  const { spec } = route;
  const parameters = [
    ...pathParameters(route, id, schemas),
    ...queryParameters(route, id, schemas),
  ];
  const requestBody = body(route, id, schemas);
  return {
    operationId: id,
    summary: spec.summary,
    description: accessText(spec.access, spec.method),
    ...(spec.tags?.length && { tags: spec.tags }),
    security: security(route),
    ...(parameters.length > 0 && { parameters }),
    ...(requestBody && { requestBody }),
    responses: responses(route, id, schemas, parameters, requestBody !== undefined),
    'x-svc-access': spec.access,
    ...(spec.resource && { 'x-svc-resource': spec.resource }),
  };
}

/** What the guard in http/api.ts demands, as OpenAPI security requirements (any one suffices). */
function security(route: RegisteredRoute): Record<string, string[]>[] {
  const { access, method, path } = route.spec;
  const writes = STATE_CHANGING.has(method);
  switch (access.kind) {
    case 'public':
      // Sign-in is the one public route behind the CSRF check (login CSRF).
      return path === '/auth/login' ? [{ csrfToken: [] }] : [];
    case 'session':
    case 'trusted-session':
      return [writes ? { sessionCookie: [], csrfToken: [] } : { sessionCookie: [] }];
    case 'session-or-trusted':
      // `{}`: no credential at all is enough from a trusted network (see the description).
      return [{ sessionCookie: [] }, {}];
    case 'terminal':
      return [{ terminalToken: [] }];
    case 'device':
      return [{ deviceKey: [] }];
  }
}

function pathParameters(route: RegisteredRoute, id: string, schemas: SchemaComponents) {
  const names = pathParamNames(route.fullPath);
  if (names.length === 0) return [];
  const declared = route.spec.params
    ? objectParts(toJsonSchema(route.spec.params, 'input', `${id}_params`, schemas))
    : undefined;
  return names.map((name): Parameter => ({
    name,
    in: 'path',
    required: true,
    schema: declared?.properties[name] ?? { type: 'string' },
  }));
}

function queryParameters(route: RegisteredRoute, id: string, schemas: SchemaComponents) {
  if (!route.spec.query) return [];
  const schema = toJsonSchema(route.spec.query, 'input', `${id}_query`, schemas);
  const parts = objectParts(schema);
  if (!parts) {
    // Not a plain object (a union, a $ref): one form-exploded object parameter describes it.
    return [
      { name: 'query', in: 'query', required: false, style: 'form', explode: true, schema },
    ] satisfies Parameter[];
  }
  return Object.entries(parts.properties).map(([name, property]): Parameter => ({
    name,
    in: 'query',
    required: parts.required.includes(name),
    schema: property,
    ...(typeof property.description === 'string' && { description: property.description }),
  }));
}

function objectParts(
  schema: JsonSchema,
): { properties: Record<string, JsonSchema>; required: string[] } | undefined {
  if (schema.type !== 'object' || typeof schema.properties !== 'object') return undefined;
  return {
    properties: schema.properties as Record<string, JsonSchema>,
    required: Array.isArray(schema.required) ? (schema.required as string[]) : [],
  };
}

function body(route: RegisteredRoute, id: string, schemas: SchemaComponents) {
  const { spec } = route;
  const content: Record<string, MediaTypeObject> = {};
  if (spec.body) {
    content['application/json'] = {
      schema: toJsonSchema(spec.body, 'input', `${id}_body`, schemas),
    };
  }
  for (const mediaType of spec.rawBody ?? []) {
    content[mediaType] ??= { schema: rawSchema(mediaType) };
  }
  if (Object.keys(content).length === 0) return undefined;
  // A JSON body the schema accepts as `{}` may be left out (the server parses a missing one so).
  const optional = !spec.rawBody?.length && spec.body?.safeParse({}).success === true;
  return { required: !optional, content };
}

function rawSchema(mediaType: string): JsonSchema {
  if (mediaType.startsWith('multipart/')) return { type: 'object' };
  if (mediaType.startsWith('text/')) return { type: 'string' };
  return { type: 'string', contentMediaType: mediaType };
}

function responses(
  route: RegisteredRoute,
  id: string,
  schemas: SchemaComponents,
  parameters: Parameter[],
  hasBody: boolean,
): Record<string, ResponseObject | Ref> {
  const { spec } = route;
  const out: Record<string, ResponseObject | Ref> = {};
  for (const [status, answer] of Object.entries(spec.responses)) {
    out[status] = response(status, answer, `${id}_${status}`, schemas);
  }
  const errors: (keyof typeof ERROR_RESPONSES)[] = [];
  if (parameters.length > 0 || hasBody) errors.push('InvalidInput');
  if (spec.access.kind !== 'public') errors.push('Unauthorized');
  if (needsForbidden(route)) errors.push('Forbidden');
  if (parameters.some((p) => p.in === 'path')) errors.push('NotFound');
  if (hasBody) errors.push('TooLarge', 'WrongMediaType');
  if (!spec.withoutDatabase) errors.push('Unavailable');
  errors.push('Error');
  for (const name of errors) {
    out[ERROR_RESPONSES[name]!.status] ??= { $ref: `#/components/responses/${name}` };
  }
  return out;
}

function needsForbidden(route: RegisteredRoute): boolean {
  const { access, path } = route.spec;
  if (access.kind === 'public') return path === '/auth/login';
  // Every session may be refused for its role, its CSRF token or a pending password change.
  return access.kind !== 'terminal' && access.kind !== 'device';
}

function response(
  status: string,
  answer: ResponseSpec,
  name: string,
  schemas: SchemaComponents,
): ResponseObject {
  const description = STATUS_CODES[Number(status)] ?? `HTTP ${status}`;
  if (answer === 'empty') return { description };
  if (isMediaType(answer)) {
    return {
      description,
      content: { [answer.mediaType]: { schema: rawSchema(answer.mediaType) } },
    };
  }
  const schema = answer === errorBody ? ERROR_REF : toJsonSchema(answer, 'output', name, schemas);
  return { description, content: { 'application/json': { schema } } };
}

function isMediaType(answer: ResponseSpec): answer is { mediaType: string } {
  return typeof answer === 'object' && !(answer instanceof z.ZodType) && 'mediaType' in answer;
}

/** `get /api/people/:id/photo` → `getPeopleByIdPhoto`. */
function operationId(route: RegisteredRoute): string {
  const words = route.fullPath
    .replace(/^\/api\//, '')
    .split(/[/.-]+/)
    .filter(Boolean)
    .map((part) => {
      const param = /^:(.+)$/.exec(part);
      const word = param ? `By_${param[1]!}` : part;
      return word
        .split('_')
        .filter(Boolean)
        .map((w) => w[0]!.toUpperCase() + w.slice(1))
        .join('');
    });
  return route.spec.method + words.join('').replace(/[^A-Za-z0-9]/g, '');
}

function uniqueId(id: string, used: Set<string>): string {
  let candidate = id;
  for (let n = 2; used.has(candidate); n++) candidate = `${id}${n}`;
  used.add(candidate);
  return candidate;
}
