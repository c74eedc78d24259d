import { createHash } from 'node:crypto';
import type { Request, Response } from 'express';
import { ErrorCode } from '@svc/shared';
import { HttpError } from './errors.js';

/**
 * Optimistic concurrency for the administrators' edits (issue 30): a record's entity tag is a
 * hash of the fields an edit can change, so it moves with every such change and with nothing
 * else (a device's heartbeat or a person's photo leaves an open edit of their fields valid).
 * A hash rather than a counter: no column to keep in step on every write path, and the tests'
 * manual clock cannot make two states look alike.
 */
export function editTagOf(kind: string, fields: readonly unknown[]): string {
  const digest = createHash('sha256')
    .update(JSON.stringify([kind, ...fields]))
    .digest('base64url');
  return `"${digest.slice(0, 22)}"`;
}

/**
 * The `If-Match` the client sent, or undefined when none (or `*`: any state) was sent; a PATCH
 * without one keeps today's last-write-wins for scripts and older clients.
 */
export function ifMatchOf(req: Request): string[] | undefined {
  const raw = req.headers['if-match'];
  if (raw === undefined || raw.trim() === '' || raw.trim() === '*') return undefined;
  // Weak tags compare as strong here: the tag is only ever a hash of the fields.
  return raw.split(',').map((tag) => tag.trim().replace(/^W\//, ''));
}

/**
 * 412 `edit_conflict` when the record is no longer in the state the client last saw. Called
 * under the row's lock, before anything is changed.
 */
export function assertUnchanged(
  ifMatch: readonly string[] | undefined,
  current: string,
  what: string,
): void {
  if (ifMatch === undefined || ifMatch.includes(current)) return;
  throw new HttpError(
    412,
    ErrorCode.editConflict,
    `Someone else changed this ${what} after you opened it. Review their change, then save again.`,
    undefined,
    { ETag: current },
    { params: { record: what, etag: current } },
  );
}

/** Answers a record with its entity tag as the `ETag` header too. */
export function sendTagged(res: Response, body: { etag: string }, status = 200): void {
  res.status(status).setHeader('ETag', body.etag);
  res.json(body);
}
