import type { IncomingMessage, Server, ServerResponse } from 'node:http';

/** How often connections that fell idle during a close are ended. */
const SWEEP_MS = 100;

/**
 * Stops accepting (the shutdown's first step) and resolves once every connection is gone, or
 * cuts those left after `forceAfterMs`. `server.close()` alone ends only the connections idle
 * at that moment: a device that keeps its connection alive and posts a heartbeat every few
 * seconds was served on it indefinitely, and every SIGTERM waited the full 10 s for the cut
 * (seen in the sync benchmark: the server exited 10.1–10.3 s after SIGTERM). So while
 * closing, every answer says `Connection: close` (the device reconnects to the next start),
 * and connections that fall idle are ended as they do.
 */
export function closeHttp(http: Server, forceAfterMs = 10_000): Promise<void> {
  const lastAnswer = (_req: IncomingMessage, res: ServerResponse) =>
    res.setHeader('Connection', 'close');
  // Ahead of the app: its handler may answer before a later listener runs.
  http.prependListener('request', lastAnswer);
  return new Promise((resolve) => {
    const sweep = setInterval(() => http.closeIdleConnections(), SWEEP_MS).unref();
    const force = setTimeout(() => http.closeAllConnections(), forceAfterMs).unref();
    http.close(() => {
      clearInterval(sweep);
      clearTimeout(force);
      http.off('request', lastAnswer);
      resolve();
    });
    http.closeIdleConnections();
  });
}
