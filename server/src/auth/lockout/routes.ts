import { Op } from 'sequelize';
import {
  loginLockoutList,
  lockoutParams,
  type LoginLockout,
  type LoginLockoutList,
} from '@svc/shared';
import type { AppContext } from '../../platform/context.js';
import type { Api } from '../../platform/http/api.js';
import { visible } from '../../platform/http/scope.js';
import { clientIp } from '../middleware.js';
import type { Lockout } from './throttle.js';

const SCOPE_NAMES = { user: 'username', device: 'device', ip: 'address' } as const;

function toLockoutOut(l: Lockout): LoginLockout {
  return {
    scope: SCOPE_NAMES[l.scope],
    username: l.username,
    address: l.scope === 'ip' ? l.key : null,
    failures: l.failures,
    lockedUntil: l.until.toISOString(),
  };
}

/**
 * `/api/auth/lockouts`: administrators see which accounts (and, for a superadmin, which client
 * addresses and unknown usernames) are locked out after failed sign-ins, and clear an account's
 * lockouts. An admin sees only the accounts of their organization.
 */
export function registerLockoutRoutes(api: Api, ctx: AppContext): void {
  const tags = ['sessions'];
  api.add(
    {
      method: 'get',
      path: '/auth/lockouts',
      summary: 'Sign-in lockouts in force (by username, device cookie or address)',
      tags,
      access: { kind: 'session', minRole: 'admin' },
      responses: { 200: loginLockoutList },
    },
    async (_input, req, res) => {
      const me = req.auth!.admin;
      let lockouts = await ctx.throttle.lockouts();
      if (me.role !== 'superadmin') {
        const names = [...new Set(lockouts.flatMap((l) => (l.username ? [l.username] : [])))];
        const mine = await ctx.models.Administrator.findAll({
          attributes: ['username'],
          where: { username: { [Op.in]: names }, organizationId: me.organizationId },
          raw: true,
        });
        const visibleNames = new Set(mine.map((a) => a.username));
        lockouts = lockouts.filter(
          (l) => l.scope !== 'ip' && l.username !== null && visibleNames.has(l.username),
        );
      }
      res.json({ items: lockouts.map(toLockoutOut) } satisfies LoginLockoutList);
    },
  );

  api.add(
    {
      method: 'delete',
      path: '/auth/lockouts/:username',
      summary: 'Clear an account’s sign-in lockouts (its username’s and its device cookies’)',
      tags,
      access: { kind: 'session', minRole: 'admin' },
      params: lockoutParams,
      responses: { 204: 'empty' },
    },
    async ({ params }, req, res) => {
      const admin = visible(
        req,
        await ctx.models.Administrator.findOne({ where: { username: params.username } }),
        'Administrator',
      );
      const me = req.auth!.admin;
      await ctx.accounts.unlock(admin.username, { id: me.id, name: me.username }, clientIp(req));
      res.status(204).end();
    },
  );
}
