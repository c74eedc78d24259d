import http from 'node:http';
import type { IncomingMessage, ServerResponse } from 'node:http';

export type RequestHandler = (req: IncomingMessage, res: ServerResponse) => Promise<void>;

/** A listening HTTP server that can stop accepting connections and start again on its port. */
export interface HttpListener {
  readonly address: string;
  /** The port actually bound (resolved when 0 was asked for). */
  readonly port: number;
  /** true: stop listening, so new connections are refused; false: listen again on the same port. */
  setRefusing(refuse: boolean): Promise<void>;
  close(): Promise<void>;
}

export type ListenHttp = (
  handler: RequestHandler,
  where: { host: string; port: number },
) => Promise<HttpListener>;

function listen(server: http.Server, port: number, host: string): Promise<void> {
  return new Promise<void>((resolve, reject) => {
    const onError = (error: Error): void => reject(error);
    server.once('error', onError);
    server.listen(port, host, () => {
      server.off('error', onError);
      resolve();
    });
  });
}

function stopListening(server: http.Server): Promise<void> {
  return new Promise<void>((resolve) => {
    if (!server.listening) return resolve();
    server.close(() => resolve());
    // Keep-alive connections would otherwise hold the close (and accept requests) indefinitely.
    server.closeAllConnections();
  });
}

export const listenNodeHttp: ListenHttp = async (handler, { host, port }) => {
  const server = http.createServer((req, res) => {
    handler(req, res).catch(() => {
      if (!res.headersSent) {
        res.writeHead(500, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ error: { code: 'internal_error', message: 'simulator error' } }));
      } else {
        res.destroy();
      }
    });
  });
  await listen(server, port, host);
  const bound = server.address();
  const actualPort = typeof bound === 'object' && bound ? bound.port : port;
  let refusing = false;
  let closed = false;

  return {
    address: host,
    port: actualPort,
    async setRefusing(refuse) {
      if (closed || refuse === refusing) return;
      refusing = refuse;
      if (refuse) await stopListening(server);
      else await listen(server, actualPort, host);
    },
    async close() {
      if (closed) return;
      closed = true;
      await stopListening(server);
    },
  };
};
