import { timingSafeEqual } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { issuesToFields, type ErrorBody } from '@svc/shared';
import type { z } from 'zod';

export function sendJson(res: ServerResponse, status: number, body: unknown): void {
  const text = JSON.stringify(body);
  res.writeHead(status, {
    'content-type': 'application/json; charset=utf-8',
    'content-length': Buffer.byteLength(text),
    'cache-control': 'no-store',
  });
  res.end(text);
}

/** Every error answers the PROTOCOL §0 body. */
export function sendError(
  res: ServerResponse,
  status: number,
  code: string,
  message: string,
  fields?: Record<string, string>,
): void {
  const body: ErrorBody = { error: { code, message, ...(fields ? { fields } : {}) } };
  sendJson(res, status, body);
}

export class BodyError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly fields?: Record<string, string>,
  ) {
    super(message);
  }
}

async function readBody(req: IncomingMessage, limitBytes: number): Promise<Buffer> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req as AsyncIterable<Buffer>) {
    size += chunk.byteLength;
    if (size > limitBytes) {
      throw new BodyError(413, 'payload_too_large', `body exceeds ${limitBytes} bytes`);
    }
    chunks.push(chunk);
  }
  return Buffer.concat(chunks);
}

/** Reads a JSON body and checks it against `schema`; throws a BodyError that `sendBodyError` answers. */
export async function readJson<T>(
  req: IncomingMessage,
  schema: z.ZodType<T>,
  limitBytes = 64 * 1024,
): Promise<T> {
  const type = req.headers['content-type'] ?? '';
  if (!/^application\/json\b/i.test(type)) {
    throw new BodyError(415, 'unsupported_media_type', 'send application/json');
  }
  const raw = await readBody(req, limitBytes);
  let value: unknown;
  try {
    value = JSON.parse(raw.toString('utf8'));
  } catch {
    throw new BodyError(400, 'invalid_json', 'the body is not valid JSON');
  }
  const parsed = schema.safeParse(value);
  if (!parsed.success) {
    const fields = issuesToFields(parsed.error.issues);
    throw new BodyError(400, 'invalid_input', 'the request is invalid', fields);
  }
  return parsed.data;
}

/** Answers a failed `readJson`; returns false for any other error so the caller rethrows it. */
export function sendBodyError(res: ServerResponse, error: unknown): boolean {
  if (!(error instanceof BodyError)) return false;
  sendError(res, error.status, error.code, error.message, error.fields);
  return true;
}

function sameSecret(a: string, b: string): boolean {
  const left = Buffer.from(a, 'utf8');
  const right = Buffer.from(b, 'utf8');
  return left.byteLength === right.byteLength && timingSafeEqual(left, right);
}

/** True when the request carries `Authorization: Bearer <secret>`. */
export function hasBearer(req: IncomingMessage, secret: string): boolean {
  const header = req.headers.authorization ?? '';
  const match = /^Bearer\s+(.+)$/i.exec(header);
  return !!match?.[1] && sameSecret(match[1].trim(), secret);
}

export function sendUnauthorized(res: ServerResponse): void {
  res.setHeader('www-authenticate', 'Bearer');
  sendError(res, 401, 'unauthorized', 'a valid bearer credential is required');
}

export function sendNotFound(res: ServerResponse): void {
  sendError(res, 404, 'not_found', 'no such resource');
}

export function sendMethodNotAllowed(res: ServerResponse, allow: string[]): void {
  res.setHeader('allow', allow.join(', '));
  sendError(res, 405, 'method_not_allowed', `use ${allow.join(' or ')}`);
}

/** The request path without query, decoded segment by segment (undefined when malformed). */
export function requestPath(req: IncomingMessage): string[] | undefined {
  const path = (req.url ?? '/').split('?')[0] ?? '/';
  try {
    return path
      .split('/')
      .filter((segment) => segment !== '')
      .map((segment) => decodeURIComponent(segment));
  } catch {
    return undefined;
  }
}
