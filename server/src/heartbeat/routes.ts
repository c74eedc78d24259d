import type { Response } from 'express';
import { SERVICE_NAME, heartbeatResponse, type HeartbeatResponse } from '@svc/shared';
import type { AppContext } from '../context.js';
import type { Api } from '../http/api.js';
import { createDbProbe } from './db-probe.js';

/**
 * PROTOCOL §5 heartbeat. Reads and writes no business data: the database check is `SELECT 1`,
 * shared among concurrent requests and reused for up to a second (db-probe.ts).
 * 503 with state 0 while the database is unreachable (or not connected yet).
 */
export function registerHeartbeatRoutes(api: Api, ctx: AppContext): void {
  const probe = createDbProbe(() => ctx.db.ping());
  const handler = async (_input: unknown, _req: unknown, res: Response) => {
    const started = process.hrtime.bigint();
    const up = ctx.db.ready ? await probe.check() : false;
    const state = ctx.db.ready ? ctx.db.state() : 'connecting';
    const body: HeartbeatResponse = {
      state: up ? 1 : 0,
      service: SERVICE_NAME,
      version: ctx.version,
      time: ctx.clock.now().toISOString(),
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
    res.status(up ? 200 : 503).json(body);
  };
  for (const method of ['get', 'post'] as const) {
    api.add(
      {
        method,
        path: '/heartbeat',
        summary:
          'Central-service heartbeat: state 1 when normal; 503 with state 0 while the database is down',
        tags: ['operations'],
        access: { kind: 'public' },
        responses: { 200: heartbeatResponse, 503: heartbeatResponse },
        withoutDatabase: true,
        bodyLimit: false,
      },
      handler,
    );
  }
}
