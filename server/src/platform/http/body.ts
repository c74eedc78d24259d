import express, { type RequestHandler } from 'express';
import { ErrorCode } from '@svc/shared';
import { HttpError } from './errors.js';

const STATE_CHANGING = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);

function hasBody(req: Parameters<RequestHandler>[0]): boolean {
  const length = req.headers['content-length'];
  return req.headers['transfer-encoding'] !== undefined || (length !== undefined && length !== '0');
}

/**
 * JSON body parsing with a per-router size limit. A body in another media type is refused
 * with 415 instead of being silently ignored.
 */
export function jsonBody(limit: string): RequestHandler[] {
  const requireJson: RequestHandler = (req, _res, next) => {
    if (STATE_CHANGING.has(req.method) && hasBody(req) && !req.is('application/json')) {
      next(
        new HttpError(415, ErrorCode.unsupportedMediaType, 'Send the body as application/json.'),
      );
      return;
    }
    next();
  };
  return [requireJson, express.json({ limit, strict: true })];
}

export function isStateChanging(method: string): boolean {
  return STATE_CHANGING.has(method);
}
