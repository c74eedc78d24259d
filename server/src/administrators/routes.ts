import { randomUUID } from 'node:crypto';
import { Op, Sequelize, UniqueConstraintError, type WhereOptions } from 'sequelize';
import { z } from 'zod';
import {
  adminRole,
  administratorCreate,
  administratorOut,
  administratorUpdate,
  administratorWithPassword,
  idParams,
  listOf,
  pageQuery,
} from '@svc/shared';
import type { Request } from 'express';
import type { AppContext } from '../context.js';
import type { AdministratorRow } from '../db/models.js';
import type { Api } from '../http/api.js';
import { httpErrors } from '../http/errors.js';
import { auditActor, orgWhere, visible } from '../http/scope.js';
import { generatePassword, hashPassword } from '../auth/passwords.js';
import { assertMayGrant, assertMayManage, removesEnabledSuperadmin } from './rules.js';

const tags = ['administrators'];

const administratorsQuery = pageQuery.extend({
  /** Username prefix. */
  q: z
    .string()
    .trim()
    .toLowerCase()
    .max(64)
    .regex(/^[^\p{Cc}]*$/u, 'no control characters')
    .optional(),
  role: adminRole.optional(),
});

export function toAdministratorOut(a: AdministratorRow): z.infer<typeof administratorOut> {
  return {
    id: a.id,
    organizationId: a.organizationId,
    username: a.username,
    displayName: a.displayName,
    role: a.role,
    disabled: a.disabled,
    mustChangePassword: a.mustChangePassword,
    lastLoginAt: a.lastLoginAt?.toISOString() ?? null,
    createdAt: a.createdAt.toISOString(),
  };
}

/**
 * `/api/administrators`: accounts of the administrator's organization (a superadmin: all).
 * Reading them needs `admin` too — operators have no business with accounts. One-time
 * passwords appear only in the create and reset answers; the audit log never holds one.
 */
export function registerAdministratorRoutes(api: Api, ctx: AppContext): void {
  const { models, clock, audit, sessions } = ctx;
  const sequelize = ctx.db.sequelize;
  const load = async (req: Request, id: string) =>
    visible(req, await models.Administrator.findByPk(id), 'Administrator');

  api.add(
    {
      method: 'get',
      path: '/administrators',
      summary: 'Administrator accounts, paged; filters: q (username prefix), role',
      tags,
      access: { kind: 'session', minRole: 'admin' },
      query: administratorsQuery,
      responses: { 200: listOf(administratorOut) },
    },
    async ({ query }, req, res) => {
      const and: WhereOptions<AdministratorRow>[] = [orgWhere(req)];
      if (query.q) {
        // SUBSTR instead of LIKE: `_` is a legal username character, not a wildcard here.
        and.push(
          Sequelize.where(
            Sequelize.fn('SUBSTR', Sequelize.col('username'), 1, [...query.q].length),
            query.q,
          ),
        );
      }
      if (query.role) and.push({ role: query.role });
      const { rows, count } = await models.Administrator.findAndCountAll({
        where: { [Op.and]: and },
        order: [['username', 'ASC']],
        limit: query.pageSize,
        offset: (query.page - 1) * query.pageSize,
      });
      res.json({ items: rows.map(toAdministratorOut), total: count });
    },
  );

  api.add(
    {
      method: 'post',
      path: '/administrators',
      summary: 'Create an administrator; the answer carries a one-time password (shown once)',
      tags,
      access: { kind: 'session', minRole: 'admin' },
      body: administratorCreate,
      bodyLimit: '16kb',
      responses: { 201: administratorWithPassword },
    },
    async ({ body }, req, res) => {
      const actor = req.auth!.admin;
      const organizationId = body.organizationId ?? actor.organizationId;
      assertMayGrant(actor, body.role, organizationId);
      if (!(await models.Organization.findByPk(organizationId))) {
        throw httpErrors.invalidInput({ organizationId: 'no such organization' });
      }
      if (await models.Administrator.findOne({ where: { username: body.username } })) {
        throw usernameTaken(body.username);
      }
      const password = generatePassword();
      const passwordHash = await hashPassword(password);
      const now = clock.now();
      let created: AdministratorRow;
      try {
        created = await sequelize.transaction(async (transaction) => {
          const row = await models.Administrator.create(
            {
              id: randomUUID(),
              organizationId,
              username: body.username,
              displayName: body.displayName ?? body.username,
              role: body.role,
              passwordHash,
              mustChangePassword: true,
              disabled: false,
              passwordChangedAt: null,
              lastLoginAt: null,
              createdAt: now,
              updatedAt: now,
            },
            { transaction },
          );
          await audit.record(
            {
              action: 'admin.create',
              target: { type: 'administrator', id: row.id },
              summary: `created administrator ${row.username} (${row.role}) in organization ${organizationId}; one-time password issued, change required at sign-in`,
              ...auditActor(req),
            },
            transaction,
          );
          return row;
        });
      } catch (err) {
        if (err instanceof UniqueConstraintError) throw usernameTaken(body.username);
        throw err;
      }
      res.status(201).json({ ...toAdministratorOut(created), temporaryPassword: password });
    },
  );

  api.add(
    {
      method: 'get',
      path: '/administrators/:id',
      summary: 'One administrator account',
      tags,
      access: { kind: 'session', minRole: 'admin' },
      params: idParams,
      resource: 'administrator',
      responses: { 200: administratorOut },
    },
    async ({ params }, req, res) => {
      res.json(toAdministratorOut(await load(req, params.id)));
    },
  );

  api.add(
    {
      method: 'patch',
      path: '/administrators/:id',
      summary:
        'Rename, change the role of, disable or enable an administrator (disabling ends their sessions)',
      tags,
      access: { kind: 'session', minRole: 'admin' },
      params: idParams,
      body: administratorUpdate,
      resource: 'administrator',
      responses: { 200: administratorOut },
    },
    async ({ params, body }, req, res) => {
      const actor = req.auth!.admin;
      const target = await load(req, params.id);
      assertMayManage(actor, target);
      const role = body.role !== undefined && body.role !== target.role ? body.role : undefined;
      const disabled =
        body.disabled !== undefined && body.disabled !== target.disabled
          ? body.disabled
          : undefined;
      const displayName =
        body.displayName !== undefined && body.displayName !== target.displayName
          ? body.displayName
          : undefined;
      if (role) assertMayGrant(actor, role, target.organizationId);

      const updated = await sequelize.transaction(async (transaction) => {
        // Locks the enabled superadmins (FOR UPDATE on MySQL; SQLite's write lock is taken at
        // BEGIN), so two superadmins demoting each other at once cannot leave none.
        if (removesEnabledSuperadmin(target, { role, disabled })) {
          const enabled = await models.Administrator.findAll({
            where: { role: 'superadmin', disabled: false },
            lock: transaction.LOCK.UPDATE,
            transaction,
          });
          if (!enabled.some((a) => a.id !== target.id)) {
            throw httpErrors.conflict(
              `${target.username} is the last enabled superadmin; make another superadmin first.`,
            );
          }
        }
        if (target.id === actor.id && role) {
          throw httpErrors.forbidden('Nobody changes their own role; ask another administrator.');
        }
        if (target.id === actor.id && disabled) {
          throw httpErrors.forbidden('You cannot disable your own account.');
        }
        const fresh = await models.Administrator.findByPk(target.id, { transaction });
        if (!fresh) throw httpErrors.notFound('Administrator not found.');
        const described: string[] = [];
        if (displayName !== undefined) described.push('display name changed');
        if (role) described.push(`role ${fresh.role} → ${role}`);
        if (disabled === true) described.push('disabled; sessions ended');
        if (disabled === false) described.push('enabled');
        if (described.length === 0) return fresh;
        await fresh.update(
          {
            ...(displayName !== undefined && { displayName }),
            ...(role && { role }),
            ...(disabled !== undefined && { disabled }),
            updatedAt: clock.now(),
          },
          { transaction },
        );
        if (disabled) await sessions.destroyAllFor(fresh.id, transaction);
        await audit.record(
          {
            action: 'admin.update',
            target: { type: 'administrator', id: fresh.id },
            summary: `administrator ${fresh.username}: ${described.join('; ')}`,
            ...auditActor(req),
          },
          transaction,
        );
        return fresh;
      });
      res.json(toAdministratorOut(updated));
    },
  );

  api.add(
    {
      method: 'post',
      path: '/administrators/:id/password-reset',
      summary:
        'New one-time password (in the answer, shown once); change required at sign-in, sessions ended, lockout cleared',
      tags,
      access: { kind: 'session', minRole: 'admin' },
      params: idParams,
      resource: 'administrator',
      responses: { 200: administratorWithPassword },
    },
    async ({ params }, req, res) => {
      const actor = req.auth!.admin;
      const target = await load(req, params.id);
      assertMayManage(actor, target);
      if (target.id === actor.id) {
        // A session alone must not be enough to take over an account for good.
        throw httpErrors.forbidden(
          'Change your own password with POST /api/auth/password (it asks for the current one).',
        );
      }
      const password = generatePassword();
      const passwordHash = await hashPassword(password);
      await sequelize.transaction(async (transaction) => {
        await target.update(
          { passwordHash, mustChangePassword: true, updatedAt: clock.now() },
          { transaction },
        );
        await sessions.destroyAllFor(target.id, transaction);
        await audit.record(
          {
            action: 'admin.password_reset',
            target: { type: 'administrator', id: target.id },
            summary: `password of ${target.username} reset; one-time password issued, change required at sign-in; sessions ended; lockout cleared`,
            ...auditActor(req),
          },
          transaction,
        );
      });
      await ctx.throttle.clearUser(target.username);
      res.json({ ...toAdministratorOut(target), temporaryPassword: password });
    },
  );
}

const usernameTaken = (username: string) =>
  httpErrors.conflict(`The username "${username}" is already taken.`);
