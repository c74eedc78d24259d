import type { ErrorRequestHandler, RequestHandler } from 'express';
import { BaseError, ConnectionError, TimeoutError } from 'sequelize';
import {
  ErrorCode,
  formatMessage,
  issuesToMessages,
  type ConflictReason,
  type ErrorBody,
  type Message,
  type MessageParams,
} from '@svc/shared';
import type { z } from 'zod';
import type { Logger } from '../logger.js';

/** An error that already knows its status and PROTOCOL §0 body. */
export class HttpError extends Error {
  /** What the client is not told but the log says (a decoder's own words, for instance). */
  detail?: string;

  constructor(
    readonly status: number,
    readonly code: ErrorCode,
    message: string,
    readonly fields?: Record<string, string>,
    readonly headers?: Record<string, string>,
    /** The values the message names, and each field's message by code (translatable later). */
    readonly extra: { params?: MessageParams; fieldCodes?: Record<string, Message> } = {},
  ) {
    super(message);
  }

  body(): ErrorBody {
    return {
      error: {
        code: this.code,
        message: this.message,
        ...(this.fields && { fields: this.fields }),
        ...(this.extra.params && { params: this.extra.params }),
        ...(this.extra.fieldCodes && { fieldCodes: this.extra.fieldCodes }),
      },
    };
  }
}

/** A 400 whose fields are catalog messages (shared/src/messages.ts): the forms say the same. */
export function invalidFields(
  messages: Record<string, Message>,
  message = formatMessage('invalid_input'),
): HttpError {
  const fields: Record<string, string> = {};
  for (const [path, m] of Object.entries(messages)) fields[path] = formatMessage(m.code, m.params);
  return new HttpError(400, ErrorCode.invalidInput, message, fields, undefined, {
    fieldCodes: messages,
  });
}

export const httpErrors = {
  invalidInput: (fields: Record<string, string>, message = 'The request is not valid.') =>
    new HttpError(400, ErrorCode.invalidInput, message, fields),
  unauthorized: (message = 'Sign in first.') => new HttpError(401, ErrorCode.unauthorized, message),
  forbidden: (message = 'You are not allowed to do this.') =>
    new HttpError(403, ErrorCode.forbidden, message),
  notFound: (message = 'Not found.') => new HttpError(404, ErrorCode.notFound, message),
  /**
   * `params.reason` (shared `ConflictReason`, with a text in every catalog) lets a client say
   * it in its own language: every 409 names its reason, never only the generic sentence.
   */
  conflict: (message: string, params: MessageParams & { reason: ConflictReason }) =>
    new HttpError(409, ErrorCode.conflict, message, undefined, undefined, { params }),
  databaseUnavailable: () =>
    new HttpError(
      503,
      ErrorCode.databaseUnavailable,
      'The database is not reachable right now; try again shortly.',
      undefined,
      { 'Retry-After': '5' },
    ),
};

/** Validates a body (or query) with a shared zod schema; a failure is a 400 with fields. */
export function parseWith<T extends z.ZodType>(schema: T, value: unknown): z.infer<T> {
  const result = schema.safeParse(value ?? {});
  if (!result.success) throw invalidFields(issuesToMessages(result.error.issues, value ?? {}));
  return result.data;
}

export const notFoundHandler: RequestHandler = (req, _res, next) => {
  next(httpErrors.notFound(`No endpoint ${req.method} ${req.path}.`));
};

interface BodyParserError {
  type?: string;
  status?: number;
}

function fromBodyParser(
  err: BodyParserError & { name?: string; statusCode?: number },
): HttpError | undefined {
  // The router could not decode a path parameter (a lone %, invalid UTF-8): bad input.
  if (
    err.name === 'URIError' ||
    (err.type === undefined && (err.status ?? err.statusCode) === 400)
  ) {
    return new HttpError(400, ErrorCode.invalidInput, 'The request path is not valid.');
  }
  switch (err.type) {
    case 'entity.too.large':
      return new HttpError(413, ErrorCode.payloadTooLarge, 'The request body is too large.');
    case 'entity.parse.failed':
      return new HttpError(400, ErrorCode.invalidJson, 'The request body is not valid JSON.');
    case 'encoding.unsupported':
    case 'charset.unsupported':
      return new HttpError(415, ErrorCode.unsupportedMediaType, 'Send UTF-8 JSON.');
    case 'request.aborted':
      return new HttpError(400, ErrorCode.invalidInput, 'The request was aborted.');
    default:
      return undefined;
  }
}

/**
 * What a failure answers (PROTOCOL §0 bodies, no internals); logs what the client is not told.
 * Shared by the error handler and the device fast path (device-fast-path.ts).
 */
export function toHttpError(err: unknown, logger: Logger, reqId: unknown): HttpError {
  if (err instanceof HttpError) {
    if (err.detail) logger.info({ reqId, code: err.code, detail: err.detail }, 'request refused');
    return err;
  }
  if (err instanceof ConnectionError || err instanceof TimeoutError) {
    logger.warn({ reqId, err: { name: err.name } }, 'database unavailable');
    return httpErrors.databaseUnavailable();
  }
  const parsed = typeof err === 'object' && err !== null ? fromBodyParser(err) : undefined;
  if (parsed) return parsed;
  const name = err instanceof BaseError ? err.name : 'unexpected';
  logger.error({ reqId, err, kind: name }, 'request failed');
  // The request id in the params too: the site words the error in its own language, and the
  // operator finds the log line by it whichever language the administrator reads.
  const requestId = typeof reqId === 'string' ? reqId : '-';
  return new HttpError(
    500,
    ErrorCode.internal,
    `Something went wrong on the server (request ${requestId}).`,
    undefined,
    undefined,
    { params: { requestId } },
  );
}

/** The single place a failure becomes a response: PROTOCOL §0 bodies, no internals. */
export function errorHandler(logger: Logger): ErrorRequestHandler {
  return (err: unknown, req, res, _next) => {
    const httpError = toHttpError(err, logger, req.id);
    if (res.headersSent) {
      res.destroy();
      return;
    }
    for (const [k, v] of Object.entries(httpError.headers ?? {})) res.setHeader(k, v);
    res.status(httpError.status).json(httpError.body());
  };
}
