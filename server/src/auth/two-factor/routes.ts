import {
  ErrorCode,
  idParams,
  twoFactorEnableRequest,
  twoFactorEnabled,
  twoFactorRequirement,
  twoFactorSetup,
  twoFactorSetupRequest,
  twoFactorStatus,
} from '@svc/shared';
import type { AppContext } from '../../platform/context.js';
import type { Api } from '../../platform/http/api.js';
import { HttpError, httpErrors } from '../../platform/http/errors.js';
import { orgScope } from '../../platform/http/scope.js';
import { findAdministrator } from '../../administrators/service.js';
import { clientIp } from '../middleware.js';
import { verifyPassword } from '../passwords.js';

const tags = ['sessions'];
/** Reachable before the password change and before the required enrolment. */
const own = {
  kind: 'session',
  allowPendingPasswordChange: true,
  selfService: true,
  minRole: 'operator',
} as const;

/**
 * `/api/auth/2fa…`: the signed-in administrator enrolls a TOTP app; a superadmin requires it
 * of everyone or resets an administrator's (`/administrators/{id}/two-factor`).
 */
export function registerTwoFactorRoutes(api: Api, ctx: AppContext): void {
  registerOwnTwoFactor(api, ctx);
  registerTwoFactorEnable(api, ctx);
  registerTwoFactorReset(api, ctx);
  registerTwoFactorRequirement(api, ctx);
}

const actorOf = (req: Parameters<typeof clientIp>[0]) => ({
  actor: { id: req.auth!.admin.id, name: req.auth!.admin.username },
  ip: clientIp(req),
});

/** The signed-in administrator's own state and the start of an enrolment. */
function registerOwnTwoFactor(api: Api, ctx: AppContext): void {
  api.add(
    {
      method: 'get',
      path: '/auth/2fa',
      summary: 'The signed-in administrator’s two-factor sign-in: enabled, recovery codes left',
      tags,
      access: { kind: 'session', allowPendingPasswordChange: true },
      responses: { 200: twoFactorStatus },
    },
    async (_input, req, res) => {
      res.json(await ctx.twoFactor.status(req.auth!.admin.id));
    },
  );

  api.add(
    {
      method: 'post',
      path: '/auth/2fa/setup',
      summary:
        'Start enrolling an authenticator app (current password again): its secret, otpauth URI and QR code',
      tags,
      access: own,
      body: twoFactorSetupRequest,
      bodyLimit: '16kb',
      responses: { 200: twoFactorSetup },
    },
    async ({ body }, req, res) => {
      const admin = req.auth!.admin;
      if (!(await verifyPassword(admin.passwordHash, body.password))) {
        await ctx.audit.record({
          action: 'auth.two_factor_setup',
          outcome: 'failure',
          organizationId: admin.organizationId,
          target: { type: 'administrator', id: admin.id },
          summary: 'current password wrong',
          message: { code: 'current_password_wrong', params: {} },
          ...actorOf(req),
        });
        throw new HttpError(401, ErrorCode.invalidCredentials, 'The current password is wrong.', {
          password: 'The current password is wrong',
        });
      }
      const started = await ctx.twoFactor.begin(admin, actorOf(req));
      if (started.kind === 'already_enabled') {
        throw httpErrors.conflict(
          'Two-factor sign-in is on already; a super administrator resets it when the app is lost.',
          { reason: 'two_factor_already_on' },
        );
      }
      res.json({ secret: started.secret, uri: started.uri, qrSvg: started.qrSvg });
    },
  );
}

/** POST /auth/2fa/enable: the enrolment confirmed with a first code. */
function registerTwoFactorEnable(api: Api, ctx: AppContext): void {
  api.add(
    {
      method: 'post',
      path: '/auth/2fa/enable',
      summary:
        'Turn two-factor sign-in on with the first code from the app; answers the ten recovery codes (shown once)',
      tags,
      access: own,
      body: twoFactorEnableRequest,
      bodyLimit: '4kb',
      responses: { 200: twoFactorEnabled },
    },
    async ({ body }, req, res) => {
      const result = await ctx.twoFactor.confirm(req.auth!.admin, body.code, actorOf(req));
      if (result.kind === 'no_enrolment') {
        throw httpErrors.conflict('Start the set-up first (POST /api/auth/2fa/setup).', {
          reason: 'two_factor_not_started',
        });
      }
      if (result.kind === 'invalid') {
        throw new HttpError(
          400,
          ErrorCode.twoFactorInvalid,
          'That code is wrong: check the app’s clock, and enter the code it shows now.',
          { code: 'Wrong code' },
        );
      }
      res.json({ recoveryCodes: result.recoveryCodes });
    },
  );
}

/** DELETE /administrators/:id/two-factor: a superadmin resets a lost app. */
function registerTwoFactorReset(api: Api, ctx: AppContext): void {
  api.add(
    {
      method: 'delete',
      path: '/administrators/:id/two-factor',
      summary:
        'Reset an administrator’s two-factor sign-in (lost phone): removed, sessions ended; superadmin only',
      tags: ['administrators'],
      access: { kind: 'session', minRole: 'superadmin' },
      params: idParams,
      resource: 'administrator',
      responses: { 204: 'empty' },
    },
    async ({ params }, req, res) => {
      const target = await findAdministrator(ctx, orgScope(req), params.id);
      await ctx.twoFactor.reset(target, actorOf(req));
      res.status(204).end();
    },
  );
}

/** /settings/two-factor: whether everyone must use it. */
function registerTwoFactorRequirement(api: Api, ctx: AppContext): void {
  api.add(
    {
      method: 'get',
      path: '/settings/two-factor',
      summary: 'Whether every administrator must sign in with two factors',
      tags: ['settings'],
      access: { kind: 'session', allowPendingPasswordChange: true },
      responses: { 200: twoFactorRequirement },
    },
    async (_input, _req, res) => {
      res.json({ required: await ctx.twoFactor.required() });
    },
  );

  api.add(
    {
      method: 'put',
      path: '/settings/two-factor',
      summary:
        'Require (or stop requiring) two-factor sign-in of every administrator; superadmin only',
      tags: ['settings'],
      access: { kind: 'session', minRole: 'superadmin' },
      body: twoFactorRequirement,
      bodyLimit: '4kb',
      responses: { 200: twoFactorRequirement },
    },
    async ({ body }, req, res) => {
      // Whoever requires it has it: a superadmin cannot shut themselves out by accident.
      if (body.required && !(await ctx.twoFactor.enabled(req.auth!.admin.id))) {
        throw httpErrors.conflict(
          'Set up your own two-factor sign-in first, then require it of everyone.',
          { reason: 'two_factor_own_first' },
        );
      }
      await ctx.twoFactor.setRequired(body.required, req.auth!.admin, actorOf(req));
      res.json({ required: body.required });
    },
  );
}
