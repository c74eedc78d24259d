import {
  CSRF_COOKIE,
  ErrorCode,
  csrfResponse,
  loginRequest,
  passwordChangeRequest,
  userResponse,
  type UserResponse,
} from '@svc/shared';
import type { AppContext } from '../context.js';
import type { Api } from '../http/api.js';
import { HttpError } from '../http/errors.js';
import { normalizeUsername, toSessionUser } from './accounts.js';
import { DEVICE_COOKIE_MAX_AGE_S } from './lockout/device-cookie.js';
import { registerLockoutRoutes } from './lockout/routes.js';
import {
  clearSessionCookie,
  clientIp,
  cookies,
  currentSessionId,
  setCsrfCookie,
  setDeviceCookie,
  setSessionCookie,
} from './middleware.js';

/** PROTOCOL §6: /api/auth/{csrf,login,logout,me,password}; and /api/auth/lockouts. */
export function registerAuthRoutes(api: Api, ctx: AppContext): void {
  const tags = ['sessions'];
  api.add(
    {
      method: 'get',
      path: '/auth/csrf',
      summary: 'CSRF token for state-changing requests (sets the cookie it is bound to)',
      tags,
      access: { kind: 'public' },
      responses: { 200: csrfResponse },
    },
    (_input, req, res) => {
      const csrf = ctx.csrf();
      let nonce = cookies(req)[CSRF_COOKIE];
      if (!csrf.isValidNonce(nonce)) {
        nonce = csrf.newNonce();
        setCsrfCookie(req, res, nonce);
      }
      res.json({ token: csrf.tokenFor(nonce) });
    },
  );

  api.add(
    {
      method: 'post',
      path: '/auth/login',
      summary: 'Sign in; sets the session cookie',
      tags,
      access: { kind: 'public' },
      body: loginRequest,
      responses: { 200: userResponse },
      bodyLimit: '16kb',
    },
    async ({ body }, req, res) => {
      // A device cookie of this account from an earlier sign-in: counted on its own.
      const username = normalizeUsername(body.username);
      const devices = ctx.deviceCookies();
      const cookieName = devices.nameFor(username);
      const device = devices.verify(username, cookies(req)[cookieName], ctx.clock.now());
      const client = { ip: clientIp(req), userAgent: req.headers['user-agent'], device };
      const result = await ctx.accounts.login(username, body.password, client);
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
      const fresh = devices.issue(username, ctx.clock.now());
      setDeviceCookie(req, res, {
        name: cookieName,
        value: fresh.value,
        maxAgeS: DEVICE_COOKIE_MAX_AGE_S,
      });
      res.json({ user: toSessionUser(result.admin) } satisfies UserResponse);
    },
  );

  api.add(
    {
      method: 'post',
      path: '/auth/logout',
      summary: 'Sign out; ends the session on the server',
      tags,
      access: {
        kind: 'session',
        allowPendingPasswordChange: true,
        selfService: true,
        minRole: 'operator',
      },
      responses: { 204: 'empty' },
    },
    async (_input, req, res) => {
      const id = currentSessionId(req);
      if (id) await ctx.sessions.destroy(id);
      const admin = req.auth!.admin;
      await ctx.audit.record({
        action: 'auth.logout',
        organizationId: admin.organizationId,
        actor: { id: admin.id, name: admin.username },
        ip: clientIp(req),
      });
      clearSessionCookie(req, res);
      res.status(204).end();
    },
  );

  api.add(
    {
      method: 'get',
      path: '/auth/me',
      summary: 'The signed-in administrator',
      tags,
      access: { kind: 'session', allowPendingPasswordChange: true },
      responses: { 200: userResponse },
    },
    (_input, req, res) => {
      res.json({ user: toSessionUser(req.auth!.admin) } satisfies UserResponse);
    },
  );

  api.add(
    {
      method: 'post',
      path: '/auth/password',
      summary: 'Change the signed-in administrator’s password',
      tags,
      access: {
        kind: 'session',
        allowPendingPasswordChange: true,
        selfService: true,
        minRole: 'operator',
      },
      body: passwordChangeRequest,
      responses: { 204: 'empty' },
      bodyLimit: '16kb',
    },
    async ({ body }, req, res) => {
      const result = await ctx.accounts.changePassword(
        req.auth!.admin,
        body.currentPassword,
        body.newPassword,
        {
          ip: clientIp(req),
          userAgent: req.headers['user-agent'],
        },
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

  registerLockoutRoutes(api, ctx);
}
