import type { Request, RequestHandler } from 'express';
import { ErrorCode } from '@svc/shared';
import type { AppContext } from '../context.js';
import { clientIp, requireAdmin } from '../auth/middleware.js';
import { HttpError } from './errors.js';
import { cidrMatcher } from './net.js';

const matchers = new WeakMap<AppContext, (ip: string) => boolean>();

/** Whether the real client address (PROTOCOL §5) is inside TRUSTED_NETWORKS. */
export function fromTrustedNetwork(ctx: AppContext, req: Request): boolean {
  let match = matchers.get(ctx);
  if (!match) {
    match = cidrMatcher(ctx.config.trustedNetworks);
    matchers.set(ctx, match);
  }
  return match(clientIp(req));
}

export function requireTrustedNetwork(ctx: AppContext): RequestHandler {
  return (req, _res, next) => {
    if (fromTrustedNetwork(ctx, req)) return next();
    next(
      new HttpError(
        403,
        ErrorCode.untrustedNetwork,
        `This is only allowed from a trusted network (TRUSTED_NETWORKS); ${clientIp(req)} is not in it.`,
      ),
    );
  };
}

/** Reads open to a signed-in administrator or to any client on a trusted network. */
export function sessionOrTrustedNetwork(ctx: AppContext): RequestHandler {
  const admin = requireAdmin();
  return (req, res, next) => (fromTrustedNetwork(ctx, req) ? next() : admin(req, res, next));
}
