import { Agent, type Dispatcher } from 'undici';
import type { DeviceFetch } from '../../devices/client.js';
import { AnswerTooLarge, MAX_PEER_ANSWER_BYTES } from '../../platform/http/peer-answer.js';

/** A call that ran out of time: the client reports "no answer from … within N s". */
function timeoutError(ms: number): Error {
  return Object.assign(new Error(`no answer within ${ms} ms`), { name: 'TimeoutError' });
}

/** Rejections look like fetch's: a TypeError whose cause carries the code. */
const fetchFailed = (cause: Error) => new TypeError('fetch failed', { cause });

function hasLocation(rawHeaders: Buffer[]): boolean {
  for (let i = 0; i < rawHeaders.length; i += 2) {
    if (rawHeaders[i]!.toString('latin1').toLowerCase() === 'location') return true;
  }
  return false;
}

/**
 * The device client's transport for the push worker: undici (the HTTP client inside Node's
 * own fetch) through its dispatcher API, with keep-alive connections, at most `connections`
 * per device. A backfill sends millions of 20 KB pushes, and per push this costs a fraction of
 * the CPU of node:http with a keep-alive agent, itself cheaper than the global fetch
 * (docs/decisions/2026-11-26-sync-stores.md). Behaves like fetch for the
 * client: a redirect is refused (never followed, so the device key goes nowhere else), an
 * answer past MAX_PEER_ANSWER_BYTES rejects with AnswerTooLarge as soon as it is, a
 * failed connection rejects with a TypeError whose cause carries the code, and a call that
 * takes longer than its `timeoutMs` (connection to last byte) is aborted and rejects with a
 * TimeoutError.
 */
export function keepAliveFetch(opts: { connections?: number } = {}): DeviceFetch & {
  close(): Promise<void>;
} {
  const agent = new Agent({ connections: opts.connections ?? 8 });
  const call: DeviceFetch = (url, init) =>
    new Promise((resolve, reject) => {
      if (url.protocol !== 'http:' && url.protocol !== 'https:') {
        reject(fetchFailed(new Error(`unsupported ${url.protocol}`)));
        return;
      }
      let abort: ((err: Error) => void) | undefined;
      let settled = false;
      const settle = (fn: () => void) => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        fn();
      };
      // One plain timer per call: AbortSignal.timeout costs several times more a push.
      const timer = setTimeout(() => {
        const err = timeoutError(init.timeoutMs);
        settle(() => reject(err));
        abort?.(err);
      }, init.timeoutMs);
      let status = 0;
      let size = 0;
      const chunks: Buffer[] = [];
      const handler: Dispatcher.DispatchHandlers = {
        onConnect(abortCall) {
          // Still waiting for a connection when the time ran out: abort it once it has one.
          if (settled) abortCall(timeoutError(init.timeoutMs));
          else abort = abortCall;
        },
        onHeaders(statusCode, rawHeaders) {
          status = statusCode;
          if (statusCode >= 300 && statusCode < 400 && hasLocation(rawHeaders)) {
            const err = fetchFailed(new Error('unexpected redirect'));
            settle(() => reject(err));
            abort?.(err);
            return false;
          }
          return true;
        },
        onData(chunk) {
          size += chunk.length;
          if (size > MAX_PEER_ANSWER_BYTES) {
            const err = new AnswerTooLarge(MAX_PEER_ANSWER_BYTES);
            settle(() => reject(err));
            abort?.(err);
            return false;
          }
          chunks.push(chunk);
          return true;
        },
        onComplete() {
          const text = Buffer.concat(chunks).toString('utf8');
          settle(() => resolve({ status, text: () => Promise.resolve(text) }));
        },
        onError(err) {
          settle(() => reject(err.name === 'TimeoutError' ? err : fetchFailed(err)));
        },
      };
      agent.dispatch(
        {
          origin: url.origin,
          path: `${url.pathname}${url.search}`,
          method: init.method as Dispatcher.HttpMethod,
          headers: init.headers,
          body: init.body ?? null,
        },
        handler,
      );
    });
  return Object.assign(call, { close: () => agent.close() });
}
