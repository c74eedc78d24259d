import {
  ErrorCode,
  formatMessage,
  languageRequest,
  passwordChangeRequest,
  userResponse,
  workingOrganizationRequest,
  type UserResponse,
} from '@svc/shared';
import type { AppContext } from '../platform/context.js';
import type { Access, Api } from '../platform/http/api.js';
import { HttpError, httpErrors } from '../platform/http/errors.js';
import { registerTwoFactorRoutes } from './two-factor/routes.js';
import { registerLockoutRoutes } from './lockout/routes.js';
import { clearSessionCookie, clientIp, currentSessionId, setSessionCookie } from './middleware.js';
import { sessionUserOf } from './session-user.js';
import { registerSignIn } from './sign-in-routes.js';

const tags = ['sessions'];

/** Routes a signed-in administrator uses on their own account, even before a password change. */
const selfService = {
  kind: 'session',
  allowPendingPasswordChange: true,
  selfService: true,
  minRole: 'operator',
} as const satisfies Access;

/** PROTOCOL §6: /api/auth/{csrf,login,logout,me,password}; and /api/auth/lockouts. */
export function registerAuthRoutes(api: Api, ctx: AppContext): void {
  registerSignIn(api, ctx);
  registerSessionRoutes(api, ctx);
  registerAccountRoutes(api, ctx);
  registerLockoutRoutes(api, ctx);
  registerTwoFactorRoutes(api, ctx);
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
      const { admin, session, twoFactorEnabled } = req.auth!;
      await admin.update({ language: body.language });
      // The session's own state (a superadmin's working organization) answers as it is.
      res.json({
        user: await sessionUserOf(ctx, admin, session, twoFactorEnabled),
      } satisfies UserResponse);
    },
  );
}
