import express, { Router } from 'express';
import { z } from 'zod';
import { errorBody } from '@svc/shared';
import { effectiveRole } from './platform/openapi/access.js';
import type { RegisteredRoute, Resource } from './platform/http/api.js';
import { DIALECTS, scratchDb, type ScratchDb } from './test/dialects.js';
import { startTestServer, type TestServer } from './test/harness.js';
import type { TestClient } from './test/http-client.js';
import {
  createOrganization,
  createRows,
  seededOrganizationId,
  signedInAt,
  type OrgRows,
} from './test/org-fixtures.js';
import {
  bearer,
  call,
  expressApp,
  fillPath,
  label,
  mountedRoutes,
  paramNames,
  sessionHeaders,
  type CallReply,
} from './test/route-calls.js';
import { sampleBody } from './test/samples.js';

/**
 * The route table: every route the server mounts went through `Api` and so states an access
 * rule, and every rule holds — generically, for whatever features are registered. A route added
 * later without a rule, or with a rule the server does not enforce, fails here.
 */

const WRITES = new Set(['post', 'put', 'patch', 'delete']);
/** Path segments before `:id` that name a business row, and the resource they must declare. */
const ROW_SEGMENTS: Record<string, Resource> = {
  people: 'person',
  persons: 'person',
  spaces: 'space',
  devices: 'device',
  administrators: 'administrator',
  organizations: 'organization',
  imports: 'import',
  tasks: 'syncTask',
  events: 'recognitionEvent',
  changes: 'enrollmentChange',
};

const isFile = (route: RegisteredRoute) => {
  const ok = route.spec.responses[200];
  return typeof ok === 'object' && !(ok instanceof z.ZodType) && 'mediaType' in ok;
};

const code = (reply: CallReply) =>
  errorBody.safeParse(reply.body).success
    ? errorBody.parse(reply.body).error.code
    : `(no §0 body: ${reply.contentType})`;

describe.each(DIALECTS)('route table (%s)', (dialect) => {
  let scratch: ScratchDb;
  let server: TestServer;
  /** The same database behind a server whose TRUSTED_NETWORKS excludes the test client. */
  let untrusted: TestServer;
  let routes: RegisteredRoute[];
  let home: string;
  let admin: TestClient;
  let operator: TestClient;
  let foreign: OrgRows;
  let foreignAdmin: TestClient;

  beforeAll(async () => {
    scratch = await scratchDb(dialect);
    server = await startTestServer({ db: scratch.db, dataDir: scratch.dataDir });
    untrusted = await startTestServer({
      db: scratch.db,
      dataDir: scratch.dataDir,
      env: { TRUSTED_NETWORKS: '192.0.2.0/24' },
    });
    routes = server.api.routes;
    home = await seededOrganizationId(server);
    admin = await signedInAt(server, home, 'admin');
    operator = await signedInAt(server, home, 'operator');
    const other = await createOrganization(server, 'Sample Other Org');
    foreign = await createRows(server, other);
    foreignAdmin = await signedInAt(server, other, 'admin');
  });
  afterAll(async () => {
    await untrusted?.stop();
    await server?.stop();
    await scratch?.drop();
  });

  test('every route Express mounts was registered through Api, once', () => {
    const registered = routes.map((r) => `${r.spec.method} ${r.fullPath}`);
    const mounted = mountedRoutes(expressApp(server));
    expect(mounted.filter((m) => !registered.includes(m))).toEqual([]);
    expect(registered.filter((r) => !mounted.includes(r))).toEqual([]);
    expect(mounted.length).toBe(new Set(mounted).size);
    expect(registered.length).toBe(new Set(registered).size);
    // The seed's endpoints are there: the walk sees real routes, not an empty table.
    expect(registered).toEqual(
      expect.arrayContaining(['get /api/heartbeat', 'post /api/auth/login', 'get /api/docs']),
    );
  });

  test('every `:id` naming a business row declares its resource', () => {
    const problems: string[] = [];
    for (const route of routes) {
      const segments = route.fullPath.split('/');
      const at = segments.indexOf(':id');
      const expected = at > 0 ? ROW_SEGMENTS[segments[at - 1]!] : undefined;
      if (expected && route.spec.resource !== expected) {
        problems.push(
          `${label(route)}: resource ${route.spec.resource ?? '(none)'}, expected ${expected}`,
        );
      }
      if (route.spec.resource && !paramNames(route).includes('id')) {
        problems.push(`${label(route)}: resource ${route.spec.resource} without an :id parameter`);
      }
    }
    expect(problems).toEqual([]);
  });

  test('without a credential: 401 — except public routes, which never answer 401', async () => {
    const problems: string[] = [];
    for (const route of routes) {
      const kind = route.spec.access.kind;
      const reply = await call(server.url, route.spec.method, fillPath(route));
      if (kind === 'public') {
        if (reply.status === 401) problems.push(`${label(route)}: public but 401`);
      } else if (kind === 'session-or-trusted') {
        // From a trusted network no session is needed.
        if (reply.status === 401) problems.push(`${label(route)}: 401 from a trusted network`);
      } else if (reply.status !== 401) {
        problems.push(`${label(route)} (${kind}): ${reply.status} ${code(reply)}, expected 401`);
      } else if (!errorBody.safeParse(reply.body).success) {
        problems.push(`${label(route)}: 401 without the PROTOCOL §0 body`);
      }
    }
    expect(problems).toEqual([]);
  });

  test('session-or-trusted routes from an untrusted network without a session: 401', async () => {
    const problems: string[] = [];
    const headers = await sessionHeaders(admin);
    for (const route of routes.filter((r) => r.spec.access.kind === 'session-or-trusted')) {
      const anonymous = await call(untrusted.url, route.spec.method, fillPath(route));
      if (anonymous.status !== 401) problems.push(`${label(route)}: ${anonymous.status}`);
      // …while a session still works from there.
      const signed = await call(untrusted.url, route.spec.method, fillPath(route), { headers });
      if (signed.status === 401 || signed.status === 403) {
        problems.push(`${label(route)}: ${signed.status} with a session`);
      }
    }
    expect(problems).toEqual([]);
  });

  test('trusted-session routes from an untrusted network: 403 even with a session', async () => {
    const problems: string[] = [];
    const headers = await sessionHeaders(admin);
    for (const route of routes.filter((r) => r.spec.access.kind === 'trusted-session')) {
      const reply = await call(untrusted.url, route.spec.method, fillPath(route), { headers });
      if (reply.status !== 403 || code(reply) !== 'untrusted_network') {
        problems.push(`${label(route)}: ${reply.status} ${code(reply)}`);
      }
    }
    expect(problems).toEqual([]);
  });

  test('terminal and device routes refuse an unknown bearer credential with 401', async () => {
    const problems: string[] = [];
    for (const route of routes) {
      const kind = route.spec.access.kind;
      if (kind !== 'terminal' && kind !== 'device') continue;
      // A body that passes validation, so the credential check itself is what answers.
      const reply = await call(server.url, route.spec.method, fillPath(route), {
        headers: bearer(),
        ...(await sampleBody(route)),
      });
      if (reply.status !== 401) problems.push(`${label(route)}: ${reply.status} ${code(reply)}`);
    }
    expect(problems).toEqual([]);
  });

  test('an operator changing anything (or reading admin-only data): 403 forbidden', async () => {
    const problems: string[] = [];
    const headers = await sessionHeaders(operator);
    let checked = 0;
    for (const route of routes) {
      const role = effectiveRole(route.spec.access, route.spec.method);
      if (role === undefined || role === 'operator') {
        // Self-service writes (sign-out, own password) are the only operator writes.
        const access = route.spec.access;
        if (
          WRITES.has(route.spec.method) &&
          role === 'operator' &&
          !(access.kind === 'session' && access.selfService)
        ) {
          problems.push(`${label(route)}: an operator may write but the route is not selfService`);
        }
        continue;
      }
      checked++;
      const reply = await call(server.url, route.spec.method, fillPath(route), { headers });
      if (reply.status !== 403 || code(reply) !== 'forbidden') {
        problems.push(`${label(route)} needs ${role}: ${reply.status} ${code(reply)}`);
      }
    }
    expect(problems).toEqual([]);
    expect(checked).toBeGreaterThan(0);
  });

  test('an admin on superadmin-only routes: 403 forbidden', async () => {
    const problems: string[] = [];
    const headers = await sessionHeaders(admin);
    for (const route of routes) {
      if (effectiveRole(route.spec.access, route.spec.method) !== 'superadmin') continue;
      const reply = await call(server.url, route.spec.method, fillPath(route), { headers });
      if (reply.status !== 403 || code(reply) !== 'forbidden') {
        problems.push(`${label(route)}: ${reply.status} ${code(reply)}`);
      }
    }
    expect(problems).toEqual([]);
  });

  test("another organization's rows by id: 404 (exactly like a missing row) or 403", async () => {
    const problems: string[] = [];
    const headers = await sessionHeaders(admin);
    const ownerHeaders = await sessionHeaders(foreignAdmin);
    const scoped = routes.filter((r) => r.spec.resource && paramNames(r).includes('id'));
    // Reads first: a broken write (a delete) must not hide a broken read.
    scoped.sort((a, b) => Number(WRITES.has(a.spec.method)) - Number(WRITES.has(b.spec.method)));
    for (const route of scoped) {
      const id = foreign.ids[route.spec.resource!];
      const body = await sampleBody(route);
      const reply = await call(server.url, route.spec.method, fillPath(route, { id }), {
        headers,
        ...body,
      });
      const missing = await call(server.url, route.spec.method, fillPath(route), {
        headers,
        ...body,
      });
      if (reply.status === 404) {
        if (JSON.stringify(reply.body) !== JSON.stringify(missing.body)) {
          problems.push(
            `${label(route)}: 404 differs from a missing row's (${JSON.stringify(reply.body)} vs ${JSON.stringify(missing.body)})`,
          );
        }
        if (
          code(reply) === 'not_found' &&
          /^No endpoint/.test(String(errorBody.parse(reply.body).error.message))
        ) {
          problems.push(`${label(route)}: the route itself did not match`);
        }
      } else if (reply.status !== 403) {
        problems.push(
          `${label(route)}: ${reply.status} ${code(reply)} for another organization's ${route.spec.resource}`,
        );
      }
      // Control: the row's own organization reaches it through the same read route.
      if (route.spec.method === 'get') {
        // A person without a stored photo has no photo to serve, even to its owners.
        if (isFile(route) && route.spec.resource === 'person' && !foreign.personHasPhoto) continue;
        const own = await call(server.url, 'get', fillPath(route, { id }), {
          headers: ownerHeaders,
        });
        if (own.status !== 200 && !(route.spec.resource === 'organization' && own.status === 403)) {
          problems.push(`${label(route)}: its own organization gets ${own.status} ${code(own)}`);
        }
      }
    }
    expect(problems).toEqual([]);
  });
});

describe('the route walk', () => {
  test('sees routes mounted outside Api, nested routers and sub-applications', () => {
    const app = express();
    const nested = Router();
    nested.get('/rogue/:id', (_req, res) => {
      res.end();
    });
    const api = Router();
    api.use('/inner', nested);
    api.post('/direct', (_req, res) => {
      res.end();
    });
    app.use('/api', api);
    app.use((_req, _res, next) => next());
    app.use('/sub', express());
    expect(mountedRoutes(app)).toEqual([
      'get /api/inner/rogue/:id',
      'post /api/direct',
      'app /sub',
    ]);
  });
});
