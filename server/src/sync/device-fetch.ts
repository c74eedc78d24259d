import http from 'node:http';
import https from 'node:https';
import type { DeviceFetch } from '../devices/client.js';

/**
 * The device client's transport for the push worker: node:http with one keep-alive agent per
 * protocol, at most `maxSockets` connections per device. The global fetch costs about three
 * times the CPU per request on this workload (measured with bench/sync.mjs), and a backfill
 * sends millions. Behaves like fetch for the client: a redirect is refused (never followed,
 * so the device key goes nowhere else), a failed connection rejects with a TypeError whose
 * cause carries the code, and the signal's reason rejects a call that took too long.
 */
export function keepAliveFetch(opts: { maxSockets?: number } = {}): DeviceFetch & {
  close(): void;
} {
  const agentOpts = {
    keepAlive: true,
    maxSockets: opts.maxSockets ?? 8,
    scheduling: 'lifo' as const,
  };
  const agents = { 'http:': new http.Agent(agentOpts), 'https:': new https.Agent(agentOpts) };
  const call: DeviceFetch = (url, init) =>
    new Promise((resolve, reject) => {
      const secure = url.protocol === 'https:';
      if (!secure && url.protocol !== 'http:') {
        reject(new TypeError('fetch failed', { cause: new Error(`unsupported ${url.protocol}`) }));
        return;
      }
      const body = init.body === undefined ? undefined : Buffer.from(init.body);
      const headers: Record<string, string | number> = { ...init.headers };
      if (body) headers['content-length'] = body.byteLength;
      const req = (secure ? https : http).request(url, {
        method: init.method,
        headers,
        agent: agents[secure ? 'https:' : 'http:'],
      });
      const abort = () => {
        req.destroy();
        reject(init.signal.reason as Error);
      };
      if (init.signal.aborted) return abort();
      init.signal.addEventListener('abort', abort, { once: true });
      const done = () => init.signal.removeEventListener('abort', abort);
      req.on('error', (err) => {
        done();
        reject(new TypeError('fetch failed', { cause: err }));
      });
      req.on('response', (res) => {
        const status = res.statusCode ?? 0;
        if (status >= 300 && status < 400 && res.headers.location !== undefined) {
          res.resume();
          done();
          reject(new TypeError('fetch failed', { cause: new Error('unexpected redirect') }));
          return;
        }
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('error', (err) => {
          done();
          reject(new TypeError('fetch failed', { cause: err }));
        });
        res.on('end', () => {
          done();
          const text = Buffer.concat(chunks).toString('utf8');
          resolve({ status, text: () => Promise.resolve(text) });
        });
      });
      req.end(body);
    });
  return Object.assign(call, {
    close() {
      agents['http:'].destroy();
      agents['https:'].destroy();
    },
  });
}
