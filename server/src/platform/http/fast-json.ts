import type { IncomingMessage } from 'node:http';
import type { RequestHandler } from 'express';
import { jsonBody } from './body.js';

/** '800kb' / '4kb' / '64kb' → bytes (the limits Api routes use). */
export function limitBytes(limit: string): number {
  const m = /^(\d+)(b|kb|mb)?$/i.exec(limit.trim());
  if (!m) throw new Error(`unsupported body limit ${limit}`);
  const unit = (m[2] ?? 'b').toLowerCase();
  return Number(m[1]) * (unit === 'mb' ? 1024 * 1024 : unit === 'kb' ? 1024 : 1);
}

/** Errors shaped like body-parser's, so errors.ts answers them the same way. */
function bodyError(type: string, status: number, message: string): Error {
  return Object.assign(new Error(message), { type, status, expose: true });
}

/** `application/json`, optionally with charset=utf-8, and no content coding. */
export function plainJson(req: IncomingMessage): boolean {
  const encoding = req.headers['content-encoding'];
  if (encoding !== undefined && encoding.toLowerCase() !== 'identity') return false;
  const type = req.headers['content-type'];
  if (type === undefined) return false;
  const [media, ...params] = type.split(';');
  if (media!.trim().toLowerCase() !== 'application/json') return false;
  return params.every((p) => /^\s*charset\s*=\s*"?utf-8"?\s*$/i.test(p));
}

function hasBody(req: IncomingMessage): boolean {
  const length = req.headers['content-length'];
  return req.headers['transfer-encoding'] !== undefined || (length !== undefined && length !== '0');
}

/**
 * The JSON body of a device route (PROTOCOL §3), read without body-parser's machinery
 * (type-is, raw-body, iconv, inflation) for the common case: a plain `application/json` UTF-8
 * body. Anything else (another media type, another charset, a compressed body) takes the
 * general path (body.ts), so every answer stays the same: 415 for another media type, 413 over
 * the limit, 400 `invalid_json` for a body that is not strict JSON.
 */
export function fastJsonBody(limit: string): RequestHandler {
  const max = limitBytes(limit);
  const [requireJson, general] = jsonBody(limit);
  const slow: RequestHandler = (req, res, next) =>
    requireJson!(req, res, (err?: unknown) => (err ? next(err) : general!(req, res, next)));
  return (req, res, next) => {
    if (!hasBody(req)) {
      next();
      return;
    }
    if (!plainJson(req)) {
      slow(req, res, next);
      return;
    }
    const declared = Number(req.headers['content-length'] ?? NaN);
    if (declared > max) {
      next(bodyError('entity.too.large', 413, 'request entity too large'));
      return;
    }
    readPlainJson(req, max, (err, body) => {
      if (!err) req.body = body;
      next(err);
    });
  };
}

/**
 * Reads a plain UTF-8 JSON body of at most `max` bytes (the caller checked the media type);
 * errors are shaped like body-parser's (errors.ts turns them into the same answers).
 */
export function readPlainJson(
  req: IncomingMessage,
  max: number,
  done: (err: Error | undefined, body?: unknown) => void,
): void {
  const chunks: Buffer[] = [];
  let size = 0;
  let settled = false;
  const finish = (err?: Error, body?: unknown) => {
    if (settled) return;
    settled = true;
    req.off('data', onData);
    req.off('end', onEnd);
    req.off('aborted', onAborted);
    req.off('error', onError);
    if (err) {
      // Stop reading: the answer is an error, the rest of the body is not wanted.
      req.unpipe();
      req.pause();
    }
    done(err, body);
  };
  const onData = (chunk: Buffer) => {
    size += chunk.length;
    if (size > max) {
      finish(bodyError('entity.too.large', 413, 'request entity too large'));
      return;
    }
    chunks.push(chunk);
  };
  const onEnd = () => {
    let text = (chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks, size)).toString('utf8');
    if (text.charCodeAt(0) === 0xfeff) text = text.slice(1);
    if (text.length === 0) {
      finish(undefined, {});
      return;
    }
    // Strict, like body-parser: only an object or an array at the top.
    const first = /^[ \t\n\r]*([^ \t\n\r])/.exec(text)?.[1];
    if (first !== '{' && first !== '[') {
      finish(bodyError('entity.parse.failed', 400, 'not a JSON object or array'));
      return;
    }
    let body: unknown;
    try {
      body = JSON.parse(text) as unknown;
    } catch {
      finish(bodyError('entity.parse.failed', 400, 'invalid JSON'));
      return;
    }
    finish(undefined, body);
  };
  const onAborted = () => finish(bodyError('request.aborted', 400, 'request aborted'));
  const onError = (err: Error) => finish(err);
  req.on('data', onData);
  req.on('end', onEnd);
  req.on('aborted', onAborted);
  req.on('error', onError);
}
