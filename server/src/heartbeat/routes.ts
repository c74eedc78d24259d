import { Router, type Request, type Response } from 'express';
import { SERVICE_NAME, type HeartbeatResponse } from '@svc/shared';
import type { AppContext } from '../context.js';

/**
 * PROTOCOL §5 heartbeat. Reads and writes no business data: the database check is `SELECT 1`.
 * 503 with state 0 while the database is unreachable (or not connected yet).
 */
export function heartbeatRouter(ctx: AppContext): Router {
  const router = Router();
  const handler = async (req: Request, res: Response) => {
    const started = process.hrtime.bigint();
    const up = ctx.db.ready ? await ctx.db.ping() : false;
    const state = ctx.db.ready ? ctx.db.state() : 'connecting';
    const now = ctx.clock.now();
    const body: HeartbeatResponse = {
      state: up ? 1 : 0,
      service: SERVICE_NAME,
      version: ctx.version,
      time: now.toISOString(),
      responseTimeMs: Number(process.hrtime.bigint() - started) / 1e6,
      uptimeSeconds: Math.floor((Date.now() - ctx.startedAt.getTime()) / 1000),
      database: {
        state,
        dialect: ctx.db.dialect,
        ...(state !== 'up' && {
          message:
            state === 'connecting'
              ? 'connecting to the database (retrying with backoff)'
              : 'the database is not answering',
        }),
      },
      workers: ctx.jobs.status(),
      warnings: ctx.warnings,
      discovery: ctx.discovery.worker?.info() ?? { enabled: false },
    };
    res.setHeader('Cache-Control', 'no-store');
    res.status(up ? 200 : 503).json(body);
    void req;
  };
  router.get('/', handler);
  router.post('/', handler);
  return router;
}
