import {
  CSRF_COOKIE,
  ErrorCode,
  csrfResponse,
  loginRequest,
  userResponse,
  type UserResponse,
} from '@svc/shared';
import type { AppContext } from '../platform/context.js';
import type { Api } from '../platform/http/api.js';
import { HttpError } from '../platform/http/errors.js';
import { normalizeUsername, type LoginResult } from './accounts.js';
import { DEVICE_COOKIE_MAX_AGE_S } from './lockout/device-cookie.js';
import {
  clientIp,
  cookies,
  currentSessionId,
  setCsrfCookie,
  setDeviceCookie,
  setSessionCookie,
} from './middleware.js';
import { sessionUserOf } from './session-user.js';

const tags = ['sessions'];

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

/** Signing in: the CSRF token and login. */
export function registerSignIn(api: Api, ctx: AppContext): void {
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
