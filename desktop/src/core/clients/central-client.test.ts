import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { CentralClient } from './central-client.js';

/** A central service that answers every request after `delayMs`. */
async function slowCentral(delayMs: number): Promise<{ url: string; server: Server }> {
  const server = createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      setTimeout(() => {
        res.setHeader('content-type', 'application/json');
        res.end(
          req.url?.endsWith('/photo')
            ? JSON.stringify({ photoSha256: 'ab'.repeat(32) })
            : req.url?.endsWith('/configure')
              ? JSON.stringify({ results: [] })
              : JSON.stringify({ state: 1 }),
        );
      }, delayMs);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, server };
}

describe('CentralClient deadlines', () => {
  let central: { url: string; server: Server };
  beforeAll(async () => {
    central = await slowCentral(600);
  });
  afterAll(async () => {
    central.server.closeAllConnections();
    await new Promise((resolve) => central.server.close(resolve));
  });

  test('a photo upload outlasts the ordinary deadline while central checks the face', async () => {
    const client = new CentralClient(central.url, 200);
    // An ordinary call gives up at its deadline…
    await expect(client.heartbeat()).rejects.toThrow('within 0.2 s');
    // …while the photo waits for the central service's own face-check budget.
    await expect(client.putPhoto('p1', new Uint8Array([0xff, 0xd8]))).resolves.toBe(
      'ab'.repeat(32),
    );
  });

  test('a configure waits while central pushes to a slow terminal', async () => {
    const client = new CentralClient(central.url, 200);
    // The central service gives each terminal 5 s to save and 5 s to be read back.
    await expect(client.configure({ ids: ['ENR-1'] })).resolves.toEqual([]);
  });

  test('a photo upload still has a deadline of its own', async () => {
    const client = new CentralClient(central.url, 200, 300);
    await expect(client.putPhoto('p1', new Uint8Array([0xff, 0xd8]))).rejects.toThrow(
      'no answer from',
    );
  });
});
