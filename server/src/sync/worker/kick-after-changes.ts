import type { RequestHandler } from 'express';
import type { AppContext } from '../../platform/context.js';

const READS = new Set(['GET', 'HEAD', 'OPTIONS']);

/**
 * After every successful change made through the API (a person, a photo, access, a space, a
 * device), this service's sync worker runs at once — or, in the middle of a run, plans the
 * change at once — instead of at its next SVC_PUSH_INTERVAL tick: one person edited is pushed
 * within the push itself, not within the interval. The worker plans from the database, so a
 * change that alters nothing costs it one fingerprint read.
 */
export function kickSyncAfterChanges(ctx: AppContext): RequestHandler {
  return (req, res, next) => {
    if (!READS.has(req.method)) {
      res.once('finish', () => {
        if (res.statusCode < 400) ctx.sync.worker?.kick();
      });
    }
    next();
  };
}
