import http from 'node:http';
import type { AddressInfo } from 'node:net';

export interface Recorded {
  method: string;
  path: string;
  authorization: string | undefined;
  body: unknown;
}

export type Responder = (request: Recorded) => { status: number; body: unknown };

/** A tiny stand-in for the central service that records what the simulator sends it. */
export async function startCentralStub(respond?: Responder): Promise<{
  url: string;
  requests: Recorded[];
  on(path: string): Recorded[];
  setResponder(next: Responder): void;
  close(): Promise<void>;
}> {
  const requests: Recorded[] = [];
  let responder: Responder =
    respond ?? (() => ({ status: 200, body: { serverTime: new Date().toISOString() } }));
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const text = Buffer.concat(chunks).toString('utf8');
      let body: unknown = text;
      try {
        body = JSON.parse(text);
      } catch {
        // keep the raw text
      }
      const recorded: Recorded = {
        method: req.method ?? '',
        path: req.url ?? '',
        authorization: req.headers.authorization,
        body,
      };
      requests.push(recorded);
      const answer = responder(recorded);
      res.writeHead(answer.status, { 'content-type': 'application/json' });
      res.end(JSON.stringify(answer.body));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    on: (path) => requests.filter((r) => r.path === path),
    setResponder(next) {
      responder = next;
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
