import { z } from 'zod';
import { errorBody } from '@svc/shared';
import type { RegisteredRoute } from './platform/http/api.js';
import { DIALECTS } from './test/dialects.js';
import { suiteServer } from './test/suite.js';
import { createRows, seededOrganizationId, signedInAt, type OrgRows } from './test/org-fixtures.js';
import {
  bearer,
  call,
  fillPath,
  label,
  paramNames,
  sessionHeaders,
  type CallOptions,
  type CallReply,
} from './test/route-calls.js';
import { sampleBody } from './test/samples.js';

/**
 * Hostile input in every search/filter parameter and every path parameter of every registered
 * route, as a signed-in administrator: 400 or a correct answer, never a 5xx; and no file route
 * serves anything but an image, whatever path it is given.
 */

interface Probe {
  name: string;
  value: string;
  /** Put into the URL as is (already percent-encoded, or deliberately malformed). */
  raw?: boolean;
}

const CORPUS: Probe[] = [
  { name: 'sql tautology', value: "' OR '1'='1" },
  { name: 'sql drop', value: '"; DROP TABLE people; --' },
  { name: 'sql sleep', value: "1' AND SLEEP(5) AND '1'='1" },
  { name: 'like percent', value: '%' },
  { name: 'like underscore', value: '_' },
  { name: 'backslash', value: '\\' },
  { name: 'null byte', value: '\u0000' },
  { name: 'literal %00', value: '%00' },
  { name: 'raw %00', value: '%00', raw: true },
  { name: '10,000 characters', value: 'A'.repeat(10_000) },
  { name: '2,000 accented letters', value: 'é'.repeat(2_000) },
  { name: 'emoji', value: '😀👩‍👩‍👧‍👦🏳️‍🌈' },
  { name: 'rtl override', value: 'abc\u202Etxt.exe' },
  { name: 'combining marks', value: 'Z\u0334\u0321\u0322a\u0337\u0327l\u0336g\u0335o\u0338' },
  { name: 'traversal', value: '../../etc/passwd' },
  { name: 'literal encoded traversal', value: '%2e%2e%2f%2e%2e%2fetc%2fpasswd' },
  { name: 'raw encoded traversal', value: '%2e%2e%2f%2e%2e%2fetc%2fpasswd', raw: true },
  { name: 'raw lone percent', value: '%', raw: true },
  { name: 'raw invalid utf-8', value: '%C3%28', raw: true },
  { name: 'empty', value: '' },
  { name: 'spaces', value: '   ' },
];

const TRAVERSALS: Probe[] = [
  { name: 'traversal', value: '../../../../etc/passwd' },
  { name: 'absolute', value: '/etc/passwd' },
  { name: 'backslashes', value: '..\\..\\..\\..\\etc\\passwd' },
  { name: 'doubled dots', value: '....//....//etc/passwd' },
  { name: 'raw encoded', value: '..%2f..%2f..%2f..%2fetc%2fpasswd', raw: true },
  { name: 'raw dot-encoded', value: '%2e%2e%2f%2e%2e%2f%2e%2e%2fetc%2fpasswd', raw: true },
  { name: 'raw double-encoded', value: '%252e%252e%252fetc%252fpasswd', raw: true },
  { name: 'raw null', value: 'x%00.jpg', raw: true },
  { name: 'a hash', value: 'a'.repeat(64) },
  { name: 'a hash with traversal', value: `../files/${'a'.repeat(64)}` },
];

const isSchema = (value: unknown): value is z.ZodType => value instanceof z.ZodType;

function isImage(reply: CallReply): boolean {
  const b = reply.bytes;
  const jpeg = b[0] === 0xff && b[1] === 0xd8 && b[2] === 0xff;
  const png = b
    .subarray(0, 8)
    .equals(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]));
  return /^image\/(jpeg|png)/.test(reply.contentType) && (jpeg || png);
}

/** What is wrong with one answer, if anything. */
function judge(route: RegisteredRoute, reply: CallReply, ms: number): string | undefined {
  if (reply.status >= 500) return `${reply.status} ${JSON.stringify(reply.body)}`;
  if (ms > 4_000) return `took ${ms} ms (an injected SLEEP ran?)`;
  if (reply.status >= 400 && reply.contentType.includes('json')) {
    if (!errorBody.safeParse(reply.body).success) return `${reply.status} without the §0 body`;
  }
  if (reply.status === 200) {
    const ok = route.spec.responses[200];
    if (isSchema(ok)) {
      const parsed = ok.safeParse(reply.body);
      if (!parsed.success) return `200 does not match its schema: ${parsed.error.message}`;
    } else if (ok && ok !== 'empty' && ok.mediaType.startsWith('image/') && !isImage(reply)) {
      return `200 ${reply.contentType} that is not an image`;
    }
  }
  return undefined;
}

function queryNames(route: RegisteredRoute): string[] {
  if (!route.spec.query) return [];
  const schema = z.toJSONSchema(route.spec.query, { io: 'input', unrepresentable: 'any' });
  const properties = (schema as { properties?: Record<string, unknown> }).properties;
  return properties ? Object.keys(properties) : ['q'];
}

/** Runs calls a few at a time: the corpus is large, the machine small. */
async function inBatches<T>(items: T[], size: number, run: (item: T) => Promise<void>) {
  for (let i = 0; i < items.length; i += size) {
    await Promise.all(items.slice(i, i + size).map(run));
  }
}

// Every route times every injected value: long on a loaded machine, so its own time limit.
const CORPUS_MS = 180_000;

describe.each(DIALECTS)('injection corpus (%s)', (dialect) => {
  let own: OrgRows;
  let headers: Record<string, string>;

  const suite = suiteServer(dialect);
  beforeAll(async () => {
    const home = await seededOrganizationId(suite.server);
    own = await createRows(suite.server, home);
    headers = await sessionHeaders(await signedInAt(suite.server, home, 'admin'));
  });

  /** Real rows of the administrator's organization, so the probe reaches the query. */
  const ownValues = (route: RegisteredRoute): Record<string, string> =>
    route.spec.resource ? { id: own.ids[route.spec.resource] } : {};

  async function probe(
    route: RegisteredRoute,
    path: string,
    problems: string[],
    what: string,
  ): Promise<void> {
    const kind = route.spec.access.kind;
    const opts: CallOptions = {
      headers: kind === 'terminal' || kind === 'device' ? bearer() : headers,
      ...(route.spec.method === 'get' ? {} : await sampleBody(route)),
    };
    const started = Date.now();
    const reply = await call(suite.server.url, route.spec.method, path, opts);
    const problem = judge(route, reply, Date.now() - started);
    if (problem) problems.push(`${label(route)} ${what}: ${problem}`);
  }

  test(
    'every query parameter of every GET route: never a 5xx, 200s match their schema',
    async () => {
      const problems: string[] = [];
      const targets = suite.server.api.routes.filter(
        (r) => r.spec.method === 'get' && r.spec.query,
      );
      expect(targets.length).toBeGreaterThan(0);
      const calls: (() => Promise<void>)[] = [];
      for (const route of targets) {
        const base = fillPath(route, ownValues(route));
        for (const name of queryNames(route)) {
          for (const p of CORPUS) {
            const value = p.raw ? p.value : encodeURIComponent(p.value);
            calls.push(() =>
              probe(route, `${base}?${name}=${value}`, problems, `?${name}= ${p.name}`),
            );
          }
          // The same parameter twice (an array) and a bracketed name.
          calls.push(() => probe(route, `${base}?${name}=a&${name}=b`, problems, `?${name} twice`));
          calls.push(() => probe(route, `${base}?${name}[$ne]=x`, problems, `?${name}[$ne]`));
        }
      }
      await inBatches(calls, 6, (run) => run());
      expect(problems).toEqual([]);
    },
    CORPUS_MS,
  );

  test(
    'every path parameter of every route: never a 5xx',
    async () => {
      const problems: string[] = [];
      const targets = suite.server.api.routes.filter((r) => paramNames(r).length > 0);
      expect(targets.length).toBeGreaterThan(0);
      const calls: (() => Promise<void>)[] = [];
      for (const route of targets) {
        for (const name of paramNames(route)) {
          // An empty segment is another route's path (`/spaces/` is the list), not a probe.
          for (const p of CORPUS.filter((c) => c.value !== '')) {
            const path = p.raw
              ? fillPath(route, ownValues(route), { [name]: p.value })
              : fillPath(route, { ...ownValues(route), [name]: p.value });
            calls.push(() => probe(route, path, problems, `:${name} ${p.name}`));
          }
        }
      }
      await inBatches(calls, 6, (run) => run());
      expect(problems).toEqual([]);
    },
    CORPUS_MS,
  );

  test('file routes: path traversal never serves anything but the route’s own kind of file', async () => {
    const problems: string[] = [];
    // An image route answers an image (by its bytes); a CSV route its CSV, never another file.
    const servesOwnKind = (route: RegisteredRoute, reply: CallReply) => {
      const declared = (route.spec.responses[200] as { mediaType: string }).mediaType;
      return declared.startsWith('image/')
        ? isImage(reply)
        : reply.contentType.split(';')[0]!.trim() === declared;
    };
    const files = suite.server.api.routes.filter((r) => {
      const ok = r.spec.responses[200];
      return (
        r.spec.method === 'get' && paramNames(r).length > 0 && ok && !isSchema(ok) && ok !== 'empty'
      );
    });
    for (const route of files) {
      const names = paramNames(route);
      for (const name of names) {
        for (const p of TRAVERSALS) {
          const path = p.raw
            ? fillPath(route, ownValues(route), { [name]: p.value })
            : fillPath(route, { ...ownValues(route), [name]: p.value });
          const reply = await call(suite.server.url, 'get', path, { headers });
          if (reply.status === 200 && !servesOwnKind(route, reply)) {
            problems.push(`${label(route)} :${name} ${p.name}: 200 ${reply.contentType}`);
          }
          if (reply.bytes.includes('root:'))
            problems.push(`${label(route)} ${p.name}: leaked a file`);
        }
      }
      // Traversal after a real id, and in a query parameter nobody declared.
      const real = fillPath(route, ownValues(route));
      for (const path of [
        `${real}/..%2f..%2f..%2fetc%2fpasswd`,
        `${real}%2f..%2f..%2f..%2fetc%2fpasswd`,
        `${real}?path=../../../../etc/passwd&file=/etc/passwd`,
      ]) {
        const reply = await call(suite.server.url, 'get', path, { headers });
        if (reply.status === 200 && !servesOwnKind(route, reply)) {
          problems.push(`${label(route)} ${path}: 200 ${reply.contentType}`);
        }
        if (reply.bytes.includes('root:')) problems.push(`${label(route)} ${path}: leaked a file`);
      }
      // Control: the route does serve the person's real photo.
      if (route.spec.resource === 'person' && own.personHasPhoto) {
        const reply = await call(suite.server.url, 'get', real, { headers });
        if (reply.status !== 200 || !isImage(reply)) {
          problems.push(
            `${label(route)}: the real photo answers ${reply.status} ${reply.contentType}`,
          );
        }
      }
    }
    expect(problems).toEqual([]);
  });
});
