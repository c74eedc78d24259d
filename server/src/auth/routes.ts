import {
  CSRF_COOKIE,
  ErrorCode,
  csrfResponse,
  formatMessage,
  languageRequest,
  loginRequest,
  passwordChangeRequest,
  userResponse,
  workingOrganizationRequest,
  type SessionUser,
  type UserResponse,
} from '@svc/shared';
import type { AdministratorRow, SessionRow } from '../platform/db/models.js';
import type { AppContext } from '../platform/context.js';
import type { Access, Api } from '../platform/http/api.js';
import { HttpError, httpErrors } from '../platform/http/errors.js';
import { siteTimeZone } from '../settings/time-zone.js';
import { normalizeUsername, toSessionUser, type LoginResult } from './accounts.js';
import { registerTwoFactorRoutes } from './two-factor/routes.js';
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

const tags = ['sessions'];

/** Routes a signed-in administrator uses on their own account, even before a password change. */
const selfService = {
  kind: 'session',
  allowPendingPasswordChange: true,
  selfService: true,
  minRole: 'operator',
} as const satisfies Access;

/** Why a sign-in was refused, as the answer (two-factor ones name the `code` field). */
function loginRefusal(result: Exclude<LoginResult, { kind: 'ok' }>): HttpError {
  switch (result.kind) {
    case 'rate_limited':
      return new HttpError(
        429,
        ErrorCode.rateLimited,
        `Too many failed sign-ins; try again in ${result.retryAfterS} s. An account with two-factor sign-in gets in now with its password and current code.`,
        undefined,
        { 'Retry-After': String(result.retryAfterS) },
        { params: { retryAfterS: result.retryAfterS } },
      );
    case 'invalid':
      return new HttpError(401, ErrorCode.invalidCredentials, 'Wrong username or password.');
    case 'two_factor_required':
      return new HttpError(
        401,
        ErrorCode.twoFactorRequired,
        'Enter the code from your authenticator app (or a recovery code).',
        { code: 'Enter the code from your authenticator app, or a recovery code' },
      );
    case 'two_factor_invalid':
      return new HttpError(
        401,
        ErrorCode.twoFactorInvalid,
        'That code is wrong or was used already; enter the current code from your app.',
        { code: 'Wrong or used code' },
      );
  }
}

/** PROTOCOL §6: /api/auth/{csrf,login,logout,me,password}; and /api/auth/lockouts. */
export function registerAuthRoutes(api: Api, ctx: AppContext): void {
  registerSignIn(api, ctx);
  registerSessionRoutes(api, ctx);
  registerAccountRoutes(api, ctx);
  registerLockoutRoutes(api, ctx);
  registerTwoFactorRoutes(api, ctx);
}

/** Signing in: the CSRF token and login. */
function registerSignIn(api: Api, ctx: AppContext): void {
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
      const client = {
        ip: clientIp(req),
        userAgent: req.headers['user-agent'],
        device,
        pseudonym: (name: string) => devices.pseudonym(name),
      };
      const result = await ctx.accounts.login(username, body.password, client, body.code);
      if (result.kind !== 'ok') throw loginRefusal(result);
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
      res.json({
        user: await sessionUserOf(ctx, result.admin),
      } satisfies UserResponse);
    },
  );
}

/** The signed-in session: logout and who is signed in. */
function registerSessionRoutes(api: Api, ctx: AppContext): void {
  api.add(
    {
      method: 'post',
      path: '/auth/logout',
      summary: 'Sign out; ends the session on the server',
      tags,
      access: selfService,
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
        summary: 'signed out',
        message: { code: 'signed_out', params: {} },
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
    async (_input, req, res) => {
      const { admin, session, twoFactorEnabled } = req.auth!;
      res.json({
        user: await sessionUserOf(ctx, admin, session, twoFactorEnabled),
      } satisfies UserResponse);
    },
  );
}

/** What the signed-in administrator sets for themselves: organization, password, language. */
function registerAccountRoutes(api: Api, ctx: AppContext): void {
  api.add(
    {
      method: 'put',
      path: '/auth/organization',
      summary:
        'Choose the organization this session works in (superadmin): every list is limited to it and new records go there; null works in all',
      tags,
      access: { kind: 'session', minRole: 'superadmin' },
      body: workingOrganizationRequest,
      responses: { 200: userResponse },
    },
    async ({ body }, req, res) => {
      const { admin, session, twoFactorEnabled } = req.auth!;
      const id = body.organizationId;
      if (id !== null && !(await ctx.models.Organization.findByPk(id))) {
        throw httpErrors.notFound('Organization not found.');
      }
      await session.update({ organizationId: id });
      res.json({
        user: await sessionUserOf(ctx, admin, session, twoFactorEnabled),
      } satisfies UserResponse);
    },
  );

  api.add(
    {
      method: 'post',
      path: '/auth/password',
      summary: 'Change the signed-in administrator’s password',
      tags,
      access: selfService,
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
        const text = formatMessage(result.problem.code, result.problem.params);
        throw new HttpError(400, ErrorCode.weakPassword, text, { newPassword: text }, undefined, {
          params: { reason: result.problem.code, ...result.problem.params },
          fieldCodes: { newPassword: result.problem },
        });
      }
      setSessionCookie(req, res, result.token);
      res.status(204).end();
    },
  );

  api.add(
    {
      method: 'put',
      path: '/auth/me/language',
      summary: 'Choose the site’s language for the signed-in administrator (null: the browser’s)',
      tags,
      access: selfService,
      body: languageRequest,
      responses: { 200: userResponse },
    },
    async ({ body }, req, res) => {
      const { admin, twoFactorEnabled } = req.auth!;
      await admin.update({ language: body.language });
      res.json({
        user: await sessionUserOf(ctx, admin, undefined, twoFactorEnabled),
      } satisfies UserResponse);
    },
  );
}

/** The session's user with its two-factor state (the site leads an unenrolled one to it). */
async function sessionUserOf(
  ctx: AppContext,
  admin: AdministratorRow,
  session?: SessionRow,
  /** Known when the session was read with it (every session request); read otherwise. */
  twoFactorEnabled?: boolean,
): Promise<SessionUser> {
  const enabled = twoFactorEnabled ?? (await ctx.twoFactor.enabled(admin.id));
  return {
    ...toSessionUser(admin),
    ...(admin.role === 'superadmin' && {
      workingOrganizationId: session?.organizationId ?? null,
    }),
    twoFactorEnabled: enabled,
    twoFactorEnrolmentRequired: !enabled && (await ctx.twoFactor.required()),
    timeZone: (await siteTimeZone(ctx)).timeZone,
  };
}
