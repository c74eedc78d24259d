import type { IncomingMessage } from 'node:http';
import type { Request, Response } from 'express';
import {
  SERVICE_NAME,
  SESSION_COOKIE,
  heartbeatAnswer,
  type DatabaseState,
  type HeartbeatResponse,
  type HeartbeatSummary,
  type ServiceWarning,
  WarningCode,
} from '@svc/shared';
import type { AppContext } from '../platform/context.js';
import type { Api } from '../platform/http/api.js';
import { cidrMatcher } from '../platform/http/net.js';
import { clientIp } from '../auth/middleware.js';
import { parseCookie } from 'cookie';
import type { PollAnswer } from '../platform/http/device-fast-path.js';
import { createDbProbe, type DbProbe } from './db-probe.js';

export interface DatabaseCheck {
  up: boolean;
  state: DatabaseState;
}

/**
 * The heartbeat's database check: `SELECT 1` once connected, shared among concurrent requests
 * and reused for up to a second (db-probe.ts).
 */
export async function checkDatabase(
  ctx: Pick<AppContext, 'db'>,
  probe: DbProbe,
): Promise<DatabaseCheck> {
  if (!ctx.db.ready) return { up: false, state: 'connecting' };
  const up = await probe.check();
  return { up, state: ctx.db.state() };
}

/**
 * Whether the caller may read the details: a client in TRUSTED_NETWORKS, or a signed-in
 * administrator (the route is served ahead of the session loader, so the cookie is read here;
 * while the database is down a session cannot be checked and the summary is all there is).
 */
async function mayReadDetails(
  ctx: AppContext,
  trusted: boolean,
  req: IncomingMessage,
  db: DatabaseCheck,
): Promise<boolean> {
  if (trusted) return true;
  const token = parseCookie(req.headers.cookie ?? '')[SESSION_COOKIE];
  if (!token || !db.up) return false;
  // A page polling the status must not keep an idle session alive.
  return (await ctx.sessions.resolve(token, { touch: false })).kind === 'ok';
}

/** Fewer members than this and one more failure stops the cluster (no majority). */
const CLUSTER_MIN = 3;

function clusterWarnings(ctx: AppContext): ServiceWarning[] {
  const size = ctx.db.cluster()?.clusterSize;
  if (size === null || size === undefined || size >= CLUSTER_MIN) return [];
  return [
    {
      code: WarningCode.databaseClusterSmall,
      params: { size, min: CLUSTER_MIN },
      message: `the database cluster has ${size} of at least ${CLUSTER_MIN} nodes: one more failure can stop it (docs/operations.md, "Database cluster")`,
    },
  ];
}

function details(
  ctx: AppContext,
  db: DatabaseCheck,
): Omit<HeartbeatResponse, keyof HeartbeatSummary> {
  const warnings = [...ctx.warnings, ...ctx.deviceClocks.warnings(), ...clusterWarnings(ctx)];
  return {
    version: ctx.version,
    uptimeSeconds: Math.floor((Date.now() - ctx.startedAt.getTime()) / 1000),
    database: {
      state: db.state,
      dialect: ctx.db.dialect,
      ...ctx.db.cluster(),
      ...(db.state !== 'up' && {
        message:
          db.state === 'connecting'
            ? 'connecting to the database (retrying with backoff)'
            : 'the database is not answering',
      }),
    },
    workers: ctx.jobs.status(),
    // PROTOCOL §5 readers keep the English strings; clients word the details (issue #34).
    warnings: warnings.map((w) => w.message),
    warningDetails: warnings,
    discovery: ctx.discovery.worker?.info() ?? { enabled: false },
  };
}

/**
 * PROTOCOL §5 heartbeat. Reads and writes no business data. 503 with state 0 while the
 * database is unreachable (or not connected yet). Unauthenticated callers outside
 * TRUSTED_NETWORKS get the summary (state, service, time, response time) only.
 */
export function registerHeartbeatRoutes(api: Api, ctx: AppContext): void {
  const probe = createDbProbe(() => ctx.db.ping());
  const inTrusted = cidrMatcher(ctx.config.trustedNetworks);
  // One answer for both ways in: Express (any method, proxied callers) and the fast path that
  // serves a plain GET ahead of Express, where most of a poll's cost was the framework's.
  const answer = async (req: IncomingMessage, client: string): Promise<PollAnswer> => {
    const started = process.hrtime.bigint();
    const db = await checkDatabase(ctx, probe);
    const trusted = inTrusted(client);
    const more = (await mayReadDetails(ctx, trusted, req, db)) ? details(ctx, db) : undefined;
    const body: HeartbeatSummary & Partial<HeartbeatResponse> = {
      state: db.up ? 1 : 0,
      service: SERVICE_NAME,
      time: ctx.clock.now().toISOString(),
      responseTimeMs: Number(process.hrtime.bigint() - started) / 1e6,
      ...more,
    };
    return { status: db.up ? 200 : 503, body, quiet: trusted, expected: !ctx.db.ready };
  };
  api.fast.poll('/api/heartbeat', answer);
  const handler = async (_input: unknown, req: Request, res: Response) => {
    const { status, body } = await answer(req, clientIp(req));
    res.status(status).json(body);
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
