import { Agent, createServer, get, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { closeHttp } from './close.js';

/**
 * A device keeps its connection alive and posts every few hundred milliseconds, as terminals
 * and recognition devices do with heartbeats: the close must not wait for the forced cut.
 */
describe('closeHttp', () => {
  let server: Server;
  let port: number;
  let release: (() => void) | undefined;
  const agent = new Agent({ keepAlive: true, maxSockets: 1 });

  beforeEach(async () => {
    server = createServer((req, res) => {
      // /slow is answered when the test says so: a request in flight when the close begins.
      if (req.url === '/slow') release = () => res.end('slow');
      else res.end('ok');
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    port = (server.address() as AddressInfo).port;
  });
  afterEach(() => {
    agent.destroy();
    server.closeAllConnections();
  });

  const request = (path: string) =>
    new Promise<{ connection: string | undefined; body: string }>((resolve, reject) => {
      get({ host: '127.0.0.1', port, path, agent }, (res) => {
        let body = '';
        res.on('data', (chunk: Buffer) => (body += chunk.toString()));
        res.on('end', () => resolve({ connection: res.headers.connection, body }));
      }).on('error', reject);
    });

  test('a kept-alive connection in use ends with its next answer, without the forced cut', async () => {
    expect((await request('/ok')).connection).toBe('keep-alive');
    const inFlight = request('/slow');
    while (!release) await new Promise((resolve) => setImmediate(resolve));

    let closed = false;
    // Never cut in this test: the close has to end the connection itself.
    const closing = closeHttp(server, 600_000).then(() => (closed = true));
    release();
    expect((await inFlight).body).toBe('slow');

    // The device goes on posting on its connection until the server is gone.
    const answers: (string | undefined)[] = [];
    let refused = false;
    while (!closed) {
      try {
        answers.push((await request('/ok')).connection);
      } catch (err) {
        refused = (err as NodeJS.ErrnoException).code === 'ECONNREFUSED';
        break;
      }
    }
    await closing;
    expect(closed).toBe(true);
    // Whatever was still answered on it said so: the connection ends with that answer.
    expect(answers.every((c) => c === 'close')).toBe(true);
    expect(answers.length <= 1 || refused).toBe(true);
    await expect(request('/ok')).rejects.toMatchObject({ code: 'ECONNREFUSED' });
  });
});
