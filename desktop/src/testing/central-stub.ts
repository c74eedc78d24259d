import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { TerminalEntry } from '../core/terminal-directory.js';

/** A request as a stand-in's route sees it: its path and its whole body. */
export interface StubRequest {
  url: string;
  method: string;
  body: string;
}

/** An answer: a status and a JSON body (none for 204), and a cookie to set. */
export interface StubAnswer {
  status: number;
  body?: unknown;
  cookie?: string;
}

/**
 * Answers a request, or leaves it to the stand-in's own answers (undefined). `'drop'` closes the
 * connection unanswered, as a stopped service behind a proxy does.
 */
export type StubRoute = (req: StubRequest) => StubAnswer | 'drop' | undefined;

/** The account the stand-in signs in. */
export const STUB_USER = {
  id: 'a1',
  username: 'tess',
  displayName: 'Tess',
  role: 'admin',
  organizationId: 'o1',
  mustChangePassword: false,
} as const;
export const STUB_CSRF_TOKEN = 'csrf-Tok3n-0123456789abcdef';
/** The session the stand-in's sign-in sets as its cookie. */
export const STUB_SESSION = 'SessionCookieValue42';

/** A heartbeat (`GET /api/heartbeat`) of a healthy service, or of one whose database is down. */
export function heartbeatBody(healthy = true, time = new Date().toISOString()) {
  return {
    state: healthy ? 1 : 0,
    service: 'svc',
    time,
    responseTimeMs: 1,
    version: '0.1.0',
    uptimeSeconds: 1,
    database: { state: healthy ? 'up' : 'down', dialect: 'sqlite' },
    workers: {},
    warnings: [],
  };
}

/** A terminal as the central service lists it (`GET /api/discovery/nodes`). */
export function centralNode(id: string, fields: Record<string, unknown> = {}) {
  return {
    id,
    kind: 'enrollment',
    name: id,
    model: 'm',
    version: '1',
    address: '10.0.0.9',
    port: 8182,
    configUrl: 'http://10.0.0.9:8182/api/config',
    central: '',
    lastSeen: new Date().toISOString(),
    lastCheckin: null,
    online: true,
    conflict: null,
    ...fields,
  };
}

/** An enrollment terminal the console heard on 127.0.0.1, its management port `port`. */
export function heardTerminal(
  id: string,
  port: number,
  fields: Partial<TerminalEntry> = {},
): TerminalEntry {
  return {
    id,
    kind: 'enrollment',
    name: id,
    model: null,
    version: null,
    address: '127.0.0.1',
    port,
    sourcePort: 1,
    configUrl: `http://127.0.0.1:${port}/api/config`,
    central: '',
    firstSeen: '2026-11-28T00:00:00.000Z',
    lastSeen: '2026-11-28T00:00:00.000Z',
    announces: 1,
    conflict: null,
    ...fields,
  };
}

/** What the stand-in answers when the test's route does not: healthy, and Tess signs in. */
const ownAnswers: StubRoute = ({ url }) => {
  if (url === '/api/heartbeat') return { status: 200, body: heartbeatBody() };
  if (url === '/api/auth/csrf') return { status: 200, body: { token: STUB_CSRF_TOKEN } };
  if (url === '/api/auth/login') {
    return { status: 200, body: { user: STUB_USER }, cookie: `sid=${STUB_SESSION}; HttpOnly` };
  }
  return { status: 404, body: { error: { code: 'not_found', message: 'Not found.' } } };
};

export interface CentralStub {
  url: string;
  server: Server;
  close(): Promise<void>;
}

/**
 * A central service stand-in on 127.0.0.1: `route` answers first; then a healthy heartbeat, a
 * CSRF token, Tess signed in, and 404 for anything else.
 */
export async function startCentralStub(route: StubRoute = () => undefined): Promise<CentralStub> {
  const server = createServer((req, res) => {
    let body = '';
    req.on('data', (chunk: Buffer) => (body += chunk.toString()));
    req.on('end', () => {
      const request = { url: req.url ?? '/', method: req.method ?? 'GET', body };
      const answer = route(request) ?? ownAnswers(request);
      if (answer === 'drop' || answer === undefined) return void req.socket.destroy();
      res.writeHead(answer.status, {
        ...(answer.body !== undefined && { 'content-type': 'application/json' }),
        ...(answer.cookie && { 'set-cookie': answer.cookie }),
      });
      res.end(answer.body === undefined ? undefined : JSON.stringify(answer.body));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    server,
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
