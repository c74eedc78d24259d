/**
 * A stand-in upstream for checks of what nginx itself does to requests: it answers every
 * request with the method, URL, headers and body size it received. `/api/stream` opens an
 * event stream, sends one event and keeps the response open until the client goes away.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';

export interface EchoAnswer {
  method: string;
  url: string;
  headers: Record<string, string | string[] | undefined>;
  bodyBytes: number;
}

export interface EchoServer {
  /** host:port, for nginx's upstream. */
  address: string;
  close(): Promise<void>;
}

export async function startEchoServer(): Promise<EchoServer> {
  const server = http.createServer((req, res) => {
    if (req.url === '/api/stream') {
      res.writeHead(200, { 'Content-Type': 'text/event-stream', 'Cache-Control': 'no-cache' });
      res.write('data: first\n\n');
      // Held open on purpose: a buffering proxy would not pass the first event on yet.
      const keepOpen = setTimeout(() => res.end(), 30_000);
      res.on('close', () => clearTimeout(keepOpen));
      return;
    }
    let bodyBytes = 0;
    req.on('data', (chunk: Buffer) => {
      bodyBytes += chunk.length;
    });
    req.on('end', () => {
      const answer: EchoAnswer = {
        method: req.method ?? '',
        url: req.url ?? '',
        headers: req.headers,
        bodyBytes,
      };
      res.writeHead(200, { 'Content-Type': 'application/json' });
      res.end(JSON.stringify(answer));
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  return {
    address: `127.0.0.1:${port}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
