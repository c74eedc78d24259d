import { Router } from 'express';
import {
  CSRF_COOKIE,
  ErrorCode,
  loginRequest,
  passwordChangeRequest,
  type UserResponse,
} from '@svc/shared';
import type { AppContext } from '../context.js';
import { HttpError, parseWith } from '../http/errors.js';
import { jsonBody } from '../http/body.js';
import { toSessionUser } from './accounts.js';
import {
  clearSessionCookie,
  clientIp,
  cookies,
  currentSessionId,
  requireAdmin,
  requireCsrf,
  setCsrfCookie,
  setSessionCookie,
} from './middleware.js';

/** PROTOCOL §6: /api/auth/{csrf,login,logout,me,password}. */
export function authRouter(ctx: AppContext): Router {
  const router = Router();
  router.use(jsonBody('16kb'));

  router.get('/csrf', (req, res) => {
    const csrf = ctx.csrf();
    let nonce = cookies(req)[CSRF_COOKIE];
    if (!csrf.isValidNonce(nonce)) {
      nonce = csrf.newNonce();
      setCsrfCookie(req, res, nonce);
    }
    res.json({ token: csrf.tokenFor(nonce) });
  });

  router.post('/login', requireCsrf(ctx, { always: true }), async (req, res) => {
    const body = parseWith(loginRequest, req.body);
    const client = { ip: clientIp(req), userAgent: req.headers['user-agent'] };
    const result = await ctx.accounts.login(body.username, body.password, client);
    if (result.kind === 'rate_limited') {
      throw new HttpError(
        429,
        ErrorCode.rateLimited,
        `Too many failed sign-ins; try again in ${result.retryAfterS} s.`,
        undefined,
        { 'Retry-After': String(result.retryAfterS) },
      );
    }
    if (result.kind === 'invalid') {
      throw new HttpError(401, ErrorCode.invalidCredentials, 'Wrong username or password.');
    }
    // A previous session on this client is ended: the new one gets a new id.
    const previous = currentSessionId(req);
    if (previous) await ctx.sessions.destroy(previous);
    setSessionCookie(req, res, result.token);
    res.json({ user: toSessionUser(result.admin) } satisfies UserResponse);
  });

  router.post('/logout', requireCsrf(ctx), async (req, res) => {
    const id = currentSessionId(req);
    if (id) await ctx.sessions.destroy(id);
    if (req.auth) {
      await ctx.audit.record({
        action: 'auth.logout',
        organizationId: req.auth.admin.organizationId,
        actor: { id: req.auth.admin.id, name: req.auth.admin.username },
        ip: clientIp(req),
      });
    }
    clearSessionCookie(req, res);
    res.status(204).end();
  });

  router.get('/me', requireAdmin({ allowPendingPasswordChange: true }), (req, res) => {
    res.json({ user: toSessionUser(req.auth!.admin) } satisfies UserResponse);
  });

  router.post(
    '/password',
    requireCsrf(ctx),
    requireAdmin({ allowPendingPasswordChange: true, selfService: true }),
    async (req, res) => {
      const body = parseWith(passwordChangeRequest, req.body);
      const result = await ctx.accounts.changePassword(
        req.auth!.admin,
        body.currentPassword,
        body.newPassword,
        { ip: clientIp(req), userAgent: req.headers['user-agent'] },
      );
      if (result.kind === 'wrong_current') {
        throw new HttpError(401, ErrorCode.invalidCredentials, 'The current password is wrong.');
      }
      if (result.kind === 'weak') {
        throw new HttpError(400, ErrorCode.weakPassword, result.message, {
          newPassword: result.message,
        });
      }
      setSessionCookie(req, res, result.token);
      res.status(204).end();
    },
  );

  return router;
}
