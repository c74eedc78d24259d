import type { Request, RequestHandler, Response } from 'express';
import { parseCookie, stringifySetCookie } from 'cookie';
import { CSRF_COOKIE, CSRF_HEADER, ErrorCode, SESSION_COOKIE, type AdminRole } from '@svc/shared';
import type { AppContext } from '../platform/context.js';
import { HttpError, httpErrors } from '../platform/http/errors.js';
import { isStateChanging } from '../platform/http/body.js';
import type { AccessGuards, AdminRule } from '../platform/http/guards.js';
import { ABSOLUTE_TIMEOUT_MS, tokenId } from './sessions.js';
import '../platform/http/types.js';

export function cookies(req: Request): Record<string, string | undefined> {
  return parseCookie(req.headers.cookie ?? '');
}

// Kept here for the routes that still import it from auth/; its home is http/net.ts.
export { clientIp } from '../platform/http/net.js';

function cookieOptions(req: Request, maxAgeS: number) {
  return {
    httpOnly: true,
    sameSite: 'strict' as const,
    secure: req.secure,
    path: '/',
    maxAge: maxAgeS,
  };
}

export function setSessionCookie(req: Request, res: Response, token: string): void {
  res.append(
    'Set-Cookie',
    stringifySetCookie({
      name: SESSION_COOKIE,
      value: token,
      ...cookieOptions(req, ABSOLUTE_TIMEOUT_MS / 1000),
    }),
  );
}

export function clearSessionCookie(req: Request, res: Response): void {
  res.append(
    'Set-Cookie',
    stringifySetCookie({ name: SESSION_COOKIE, value: '', ...cookieOptions(req, 0) }),
  );
}

/** The sign-in device cookie (lockout/device-cookie.ts): sent to the sign-in route only. */
export function setDeviceCookie(
  req: Request,
  res: Response,
  cookie: { name: string; value: string; maxAgeS: number },
): void {
  res.append(
    'Set-Cookie',
    stringifySetCookie({
      name: cookie.name,
      value: cookie.value,
      ...cookieOptions(req, cookie.maxAgeS),
      path: '/api/auth/login',
    }),
  );
}

export function setCsrfCookie(req: Request, res: Response, nonce: string): void {
  res.append(
    'Set-Cookie',
    stringifySetCookie({ name: CSRF_COOKIE, value: nonce, ...cookieOptions(req, 24 * 3600) }),
  );
}

/** Resolves the session cookie, if any, into req.auth. */
export function loadSession(ctx: AppContext): RequestHandler {
  return async (req, _res, next) => {
    const token = cookies(req)[SESSION_COOKIE];
    if (token) {
      const resolved = await ctx.sessions.resolve(token);
      if (resolved.kind === 'ok') {
        const { admin, session, twoFactorEnabled } = resolved;
        const enrolmentRequired = !twoFactorEnabled && (await ctx.twoFactor.required());
        req.auth = {
          admin,
          session,
          twoFactorEnabled,
          ...(enrolmentRequired && { twoFactorEnrolmentRequired: true }),
        };
      } else req.sessionExpired = true;
    }
    next();
  };
}

/**
 * CSRF check for state-changing requests that carry the session cookie, or always (login).
 * Bearer-authenticated device and terminal routes are not behind this middleware.
 */
export function requireCsrf(ctx: AppContext, opts: { always?: boolean } = {}): RequestHandler {
  return (req, _res, next) => {
    if (!isStateChanging(req.method)) return next();
    const jar = cookies(req);
    if (!opts.always && jar[SESSION_COOKIE] === undefined) return next();
    const header = req.headers[CSRF_HEADER];
    if (!ctx.csrf().verify(jar[CSRF_COOKIE], typeof header === 'string' ? header : undefined)) {
      return next(
        new HttpError(
          403,
          ErrorCode.csrf,
          'Missing or invalid CSRF token: fetch GET /api/auth/csrf and send it as X-CSRF-Token.',
        ),
      );
    }
    next();
  };
}

const RANK: Record<AdminRole, number> = { operator: 0, admin: 1, superadmin: 2 };

/**
 * Demands a signed-in administrator. Operators are read-only: any state-changing request needs
 * at least `admin`. While the password must be changed, only routes that opt in are reachable.
 */
export function requireAdmin(opts: AdminRule = {}): RequestHandler {
  return (req, _res, next) => {
    const auth = req.auth;
    if (!auth) {
      return next(
        req.sessionExpired
          ? new HttpError(401, ErrorCode.sessionExpired, 'Your session has ended; sign in again.')
          : httpErrors.unauthorized(),
      );
    }
    if (auth.admin.mustChangePassword && !opts.allowPendingPasswordChange) {
      return next(
        new HttpError(
          403,
          ErrorCode.passwordChangeRequired,
          'Change your password first (POST /api/auth/password).',
        ),
      );
    }
    if (auth.twoFactorEnrolmentRequired && !opts.allowPendingPasswordChange) {
      return next(
        new HttpError(
          403,
          ErrorCode.twoFactorEnrolmentRequired,
          'Two-factor sign-in is required: set it up first (POST /api/auth/2fa/setup).',
        ),
      );
    }
    const needed: AdminRole =
      opts.minRole ?? (isStateChanging(req.method) && !opts.selfService ? 'admin' : 'operator');
    if (RANK[auth.admin.role] < RANK[needed]) {
      const { denied } = opts;
      return next(
        denied
          ? new HttpError(403, ErrorCode.forbidden, denied.message, undefined, undefined, {
              params: { reason: denied.reason },
            })
          : httpErrors.forbidden(`This needs the ${needed} role.`),
      );
    }
    next();
  };
}

/** The session checks `Api` puts in front of its routes (http/guards.ts). */
export function authGuards(ctx: AppContext): AccessGuards {
  return { csrf: (opts) => requireCsrf(ctx, opts), admin: requireAdmin };
}

export function currentSessionId(req: Request): string | undefined {
  const token = cookies(req)[SESSION_COOKIE];
  return token ? tokenId(token) : undefined;
}
