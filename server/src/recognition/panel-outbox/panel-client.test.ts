import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { pipelinedPanelTransport, type PanelTransport } from './panel-client.js';

/** A panel stand-in on loopback: records bodies in the order it reads them. */
async function panel(
  answer: (n: number, req: IncomingMessage, res: ServerResponse) => void,
): Promise<{ url: string; received: string[]; connections: () => number; server: Server }> {
  const received: string[] = [];
  let connections = 0;
  const server = createServer((req, res) => {
    let body = '';
    req.setEncoding('utf8');
    req.on('data', (c: string) => (body += c));
    req.on('end', () => {
      received.push(body);
      answer(received.length, req, res);
    });
  });
  server.on('connection', () => connections++);
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/api/recognition`,
    received,
    connections: () => connections,
    server,
  };
}

const bodies = (n: number) => Array.from({ length: n }, (_, i) => JSON.stringify({ n: i }));

describe('pipelined panel transport', () => {
  let transport: PanelTransport;
  let server: Server | undefined;
  beforeEach(() => {
    transport = pipelinedPanelTransport({ timeoutMs: 5_000 });
  });
  afterEach(async () => {
    transport.close();
    server?.closeAllConnections();
    await new Promise((r) => server?.close(r) ?? r(undefined));
    server = undefined;
  });

  test('200 bodies on one connection arrive in order, each answered 2xx', async () => {
    const p = await panel((_, __, res) => res.end('{"shown":true}'));
    server = p.server;
    const sent = bodies(200);
    expect(await transport.post(p.url, sent)).toEqual(sent.map(() => undefined));
    expect(p.received).toEqual(sent);
    expect(await transport.post(p.url, bodies(3))).toEqual([undefined, undefined, undefined]);
    expect(p.connections()).toBe(1);
  });

  test('a non-2xx answer is reported for its own body; chunked and empty answers are read', async () => {
    const p = await panel((n, _, res) => {
      if (n === 2) {
        res.statusCode = 500;
        res.end('no');
      } else if (n === 3) {
        res.statusCode = 204;
        res.end();
      } else {
        res.write('chunk one,');
        res.end('chunk two');
      }
    });
    server = p.server;
    expect(await transport.post(p.url, bodies(4))).toEqual([
      undefined,
      'the panel answered HTTP 500',
      undefined,
      undefined,
    ]);
  });

  test('a panel that closes the connection after each answer gets every body, then one per connection', async () => {
    const p = await panel((_, __, res) => {
      res.setHeader('connection', 'close');
      res.end('ok');
    });
    server = p.server;
    const sent = bodies(5);
    expect(await transport.post(p.url, sent)).toEqual(sent.map(() => undefined));
    // Node reads the pipelined requests behind the closing answer too: those come again.
    expect([...new Set(p.received)]).toEqual(sent);
    p.received.length = 0;
    const more = bodies(3);
    expect(await transport.post(p.url, more)).toEqual(more.map(() => undefined));
    expect(p.received).toEqual(more);
  });

  test('nobody listening: every body fails with the reason', async () => {
    const p = await panel(() => undefined);
    const { url } = p;
    await new Promise((r) => p.server.close(r));
    const results = await transport.post(url, bodies(2));
    expect(results).toHaveLength(2);
    expect(results[0]).toMatch(/could not be reached: ECONNREFUSED/);
    expect(results[1]).toBe(results[0]);
  });

  test('a panel that does not answer in time fails the unanswered bodies', async () => {
    transport = pipelinedPanelTransport({ timeoutMs: 200 });
    const p = await panel((n, _, res) => {
      if (n === 1) res.end('ok'); // the second is never answered
    });
    server = p.server;
    const results = await transport.post(p.url, bodies(2));
    expect(results[0]).toBeUndefined();
    expect(results[1]).toBe('the panel did not answer within 200 ms');
  });
});
