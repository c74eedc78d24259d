import { Router, type Request, type RequestHandler, type Response } from 'express';
import { ErrorCode } from '@svc/shared';
import type { z } from 'zod';
import type { AdminRole, ForbiddenReason } from '@svc/shared';
import type { AppContext } from '../context.js';
import type { AccessGuards } from './guards.js';
import { jsonBody } from './body.js';
import { deviceEntry } from './device-entry.js';
import { BEARER, DeviceFastPath } from './device-fast-path.js';
import { fastJsonBody } from './fast-json.js';
import { HttpError, parseWith } from './errors.js';
import { requireTrustedNetwork, sessionOrTrustedNetwork } from './trusted.js';

/**
 * Who may call a route. Every route states one; the route-table test walks them all and proves
 * each rule (a route mounted without going through `Api` fails that test).
 */
export type Access =
  /** Anyone: the heartbeat, CSRF token, sign-in. */
  | { kind: 'public' }
  /** A signed-in administrator; state changes need `admin` unless minRole says otherwise. */
  | {
      kind: 'session';
      minRole?: AdminRole;
      allowPendingPasswordChange?: boolean;
      selfService?: boolean;
      /** What a role below minRole is told (English text; `reason` lets a client translate it). */
      denied?: { reason: ForbiddenReason; message: string };
    }
  /** A session, or any client in TRUSTED_NETWORKS (reads of the seed's operational endpoints). */
  | { kind: 'session-or-trusted' }
  /** A session of at least `minRole` from a trusted network. */
  | { kind: 'trusted-session'; minRole: AdminRole }
  /** A terminal's bearer token (PROTOCOL §2). */
  | { kind: 'terminal' }
  /** A recognition device's bearer key (PROTOCOL §3). */
  | { kind: 'device' };

/** The kinds of object a path parameter names; the IDOR test uses it to cross organizations. */
export type Resource =
  | 'person'
  | 'space'
  | 'device'
  | 'administrator'
  | 'organization'
  | 'import'
  | 'syncTask'
  | 'recognitionEvent'
  | 'enrollmentChange';

type Method = 'get' | 'post' | 'put' | 'patch' | 'delete';
type Schema = z.ZodType;

export interface RouteSpec<
  B extends Schema | undefined,
  Q extends Schema | undefined,
  P extends Schema | undefined,
> {
  method: Method;
  /** Relative to /api, Express syntax: '/people/:id'. */
  path: string;
  summary: string;
  tags?: string[];
  access: Access;
  body?: B;
  query?: Q;
  params?: P;
  /** What a successful answer looks like, by status; 'empty' for 204; a media type for files. */
  responses: Record<number, Schema | 'empty' | { mediaType: string }>;
  /** The resource named by `:id`, for the cross-organization test. */
  resource?: Resource;
  /** JSON body limit (default 64kb); or `false` when the route reads its body itself. */
  bodyLimit?: string | false;
  /** Media types of a body the route reads itself (uploads). */
  rawBody?: string[];
  /** Served while the database is down or not ready yet (only the heartbeat). */
  withoutDatabase?: boolean;
}

type Out<S> = S extends Schema ? z.infer<S> : undefined;

export interface Parsed<B, Q, P> {
  body: B;
  query: Q;
  params: P;
}

export type Handler<B, Q, P> = (
  input: Parsed<B, Q, P>,
  req: Request,
  res: Response,
) => Promise<void> | void;

export interface RegisteredRoute {
  spec: RouteSpec<Schema | undefined, Schema | undefined, Schema | undefined>;
  /** '/api' + spec.path */
  fullPath: string;
}

const STATE_CHANGING = new Set<Method>(['post', 'put', 'patch', 'delete']);

/**
 * The one way to add an HTTP route: validates input with the shared zod schemas, applies the
 * access rule, and records the route for the OpenAPI document and the route-table test.
 */
export class Api {
  /**
   * Routes that answer while the database is unavailable (the heartbeat, polled by monitoring):
   * mounted first, with the device routes' lean prelude instead of the general chain (app.ts).
   */
  readonly early = Router();
  readonly router = Router();
  /** Device-key routes (PROTOCOL §3); mounted ahead of request logging and sessions (app.ts). */
  readonly device = Router();
  /** The hottest device POSTs, also answered ahead of Express (device-fast-path.ts, app.ts). */
  readonly fast: DeviceFastPath;
  readonly routes: RegisteredRoute[] = [];
  private readonly deviceStart: RequestHandler;
  private readonly earlyStart: RequestHandler;

  /** `guards`: the session checks, implemented by auth/ (`authGuards`). */
  constructor(
    private readonly ctx: AppContext,
    private readonly guards: AccessGuards,
  ) {
    this.deviceStart = deviceEntry(ctx);
    this.earlyStart = deviceEntry(ctx, { readinessGate: false });
    this.fast = new DeviceFastPath(ctx);
  }

  add<
    B extends Schema | undefined = undefined,
    Q extends Schema | undefined = undefined,
    P extends Schema | undefined = undefined,
  >(spec: RouteSpec<B, Q, P>, handler: Handler<Out<B>, Out<Q>, Out<P>>): void {
    const onDevice = spec.access.kind === 'device' && !spec.withoutDatabase;
    const start = spec.withoutDatabase ? [this.earlyStart] : onDevice ? [this.deviceStart] : [];
    const chain: RequestHandler[] = [...start, ...this.guard(spec)];
    if (spec.bodyLimit !== false && STATE_CHANGING.has(spec.method)) {
      const limit = spec.bodyLimit ?? '64kb';
      // Device bodies arrive thousands per second: the lean reader for plain UTF-8 JSON.
      chain.push(...(onDevice ? [fastJsonBody(limit)] : jsonBody(limit)));
    }
    chain.push(async (req, res) => {
      const input = {
        body: (spec.body ? parseWith(spec.body, req.body) : undefined) as Out<B>,
        query: (spec.query ? parseWith(spec.query, req.query) : undefined) as Out<Q>,
        params: (spec.params ? parseWith(spec.params, req.params) : undefined) as Out<P>,
      };
      await handler(input, req, res);
    });
    (spec.withoutDatabase ? this.early : onDevice ? this.device : this.router)[spec.method](
      spec.path,
      ...chain,
    );
    this.routes.push({ spec: spec, fullPath: `/api${spec.path}` });
  }

  private guard(
    spec: RouteSpec<Schema | undefined, Schema | undefined, Schema | undefined>,
  ): RequestHandler[] {
    const { ctx, guards } = this;
    const access = spec.access;
    switch (access.kind) {
      case 'public':
        return spec.path === '/auth/login' ? [guards.csrf({ always: true })] : [];
      case 'session':
        return [
          guards.csrf(),
          guards.admin({
            ...(access.minRole && { minRole: access.minRole }),
            ...(access.allowPendingPasswordChange && { allowPendingPasswordChange: true }),
            ...(access.selfService && { selfService: true }),
            ...(access.denied && { denied: access.denied }),
          }),
        ];
      case 'session-or-trusted':
        return [sessionOrTrustedNetwork(ctx, guards.admin())];
      case 'trusted-session':
        return [
          requireTrustedNetwork(ctx),
          guards.csrf(),
          guards.admin({ minRole: access.minRole }),
        ];
      case 'terminal':
      case 'device':
        // The credential is checked against its table by the handler (bearerToken()).
        return [requireBearer(access.kind)];
    }
  }
}

function requireBearer(kind: 'terminal' | 'device'): RequestHandler {
  return (req, res, next) => {
    const token = BEARER.exec(req.headers.authorization ?? '')?.[1];
    if (!token) {
      next(
        new HttpError(
          401,
          ErrorCode.unauthorized,
          `Send the ${kind === 'terminal' ? 'terminal token' : 'device key'} as Authorization: Bearer <credential>.`,
        ),
      );
      return;
    }
    res.locals.bearer = token;
    next();
  };
}

/** The bearer credential a terminal or device route was called with. */
export function bearerToken(res: Response): string {
  return res.locals.bearer as string;
}
