import type { Request, RequestHandler } from 'express';
import { ErrorCode } from '@svc/shared';
import type { AppContext } from '../context.js';
import { HttpError } from './errors.js';
import { cidrMatcher, clientIp } from './net.js';

/** Whether the real client address (PROTOCOL §5) is inside TRUSTED_NETWORKS. */
export function trustedNetwork(ctx: AppContext): (req: Request) => boolean {
  const match = cidrMatcher(ctx.config.trustedNetworks);
  return (req) => match(clientIp(req));
}

export function requireTrustedNetwork(ctx: AppContext): RequestHandler {
  const trusted = trustedNetwork(ctx);
  return (req, _res, next) => {
    if (trusted(req)) return next();
    next(
      new HttpError(
        403,
        ErrorCode.untrustedNetwork,
        `This is only allowed from a trusted network (TRUSTED_NETWORKS); ${clientIp(req)} is not in it.`,
      ),
    );
  };
}

/**
 * Reads open to any client on a trusted network, or else to whoever `admin` lets through (a
 * signed-in administrator: AccessGuards.admin).
 */
export function sessionOrTrustedNetwork(ctx: AppContext, admin: RequestHandler): RequestHandler {
  const trusted = trustedNetwork(ctx);
  return (req, res, next) => (trusted(req) ? next() : admin(req, res, next));
}
