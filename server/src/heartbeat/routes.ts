import type { Request, Response } from 'express';
import {
  SERVICE_NAME,
  SESSION_COOKIE,
  heartbeatAnswer,
  type DatabaseState,
  type HeartbeatResponse,
  type HeartbeatSummary,
} from '@svc/shared';
import type { AppContext } from '../context.js';
import type { Api } from '../http/api.js';
import { fromTrustedNetwork } from '../http/trusted.js';
import { cookies } from '../auth/middleware.js';

export interface DatabaseCheck {
  up: boolean;
  state: DatabaseState;
}

/** The heartbeat's database check: `SELECT 1` once connected (kept apart so it can be cached). */
export async function checkDatabase(ctx: Pick<AppContext, 'db'>): Promise<DatabaseCheck> {
  if (!ctx.db.ready) return { up: false, state: 'connecting' };
  const up = await ctx.db.ping();
  return { up, state: ctx.db.state() };
}

/**
 * Whether the caller may read the details: a client in TRUSTED_NETWORKS, or a signed-in
 * administrator (the route is served ahead of the session loader, so the cookie is read here;
 * while the database is down a session cannot be checked and the summary is all there is).
 */
async function mayReadDetails(ctx: AppContext, req: Request, db: DatabaseCheck): Promise<boolean> {
  if (fromTrustedNetwork(ctx, req)) return true;
  const token = cookies(req)[SESSION_COOKIE];
  if (!token || !db.up) return false;
  return (await ctx.sessions.resolve(token)).kind === 'ok';
}

function details(
  ctx: AppContext,
  db: DatabaseCheck,
): Omit<HeartbeatResponse, keyof HeartbeatSummary> {
  return {
    version: ctx.version,
    uptimeSeconds: Math.floor((Date.now() - ctx.startedAt.getTime()) / 1000),
    database: {
      state: db.state,
      dialect: ctx.db.dialect,
      ...(db.state !== 'up' && {
        message:
          db.state === 'connecting'
            ? 'connecting to the database (retrying with backoff)'
            : 'the database is not answering',
      }),
    },
    workers: ctx.jobs.status(),
    warnings: [...ctx.warnings, ...ctx.deviceClocks.warnings()],
    discovery: ctx.discovery.worker?.info() ?? { enabled: false },
  };
}

/**
 * PROTOCOL §5 heartbeat. Reads and writes no business data. 503 with state 0 while the
 * database is unreachable (or not connected yet). Unauthenticated callers outside
 * TRUSTED_NETWORKS get the summary (state, service, time, response time) only.
 */
export function registerHeartbeatRoutes(api: Api, ctx: AppContext): void {
  const handler = async (_input: unknown, req: Request, res: Response) => {
    const started = process.hrtime.bigint();
    const db = await checkDatabase(ctx);
    const more = (await mayReadDetails(ctx, req, db)) ? details(ctx, db) : undefined;
    const body: HeartbeatSummary & Partial<HeartbeatResponse> = {
      state: db.up ? 1 : 0,
      service: SERVICE_NAME,
      time: ctx.clock.now().toISOString(),
      responseTimeMs: Number(process.hrtime.bigint() - started) / 1e6,
      ...more,
    };
    res.status(db.up ? 200 : 503).json(body);
  };
  for (const method of ['get', 'post'] as const) {
    api.add(
      {
        method,
        path: '/heartbeat',
        summary:
          'Central-service heartbeat: state 1 when normal; 503 with state 0 while the database is down. Details (version, database, workers, warnings) for trusted networks and sessions',
        tags: ['operations'],
        access: { kind: 'public' },
        responses: { 200: heartbeatAnswer, 503: heartbeatAnswer },
        withoutDatabase: true,
        bodyLimit: false,
      },
      handler,
    );
  }
}
