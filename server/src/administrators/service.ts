import { randomUUID } from 'node:crypto';
import { Op, Sequelize, UniqueConstraintError, type WhereOptions } from 'sequelize';
import type { z } from 'zod';
import type {
  administratorCreate,
  administratorOut,
  administratorUpdate,
  administratorWithPassword,
} from '@svc/shared';
import type { AuditEntry } from '../audit/audit.js';
import type { AppContext } from '../platform/context.js';
import type { AdministratorRow } from '../platform/db/models.js';
import { assertUnchanged, editTagOf } from '../platform/http/etag.js';
import { httpErrors, invalidFields } from '../platform/http/errors.js';
import { generatePassword, hashPassword } from '../auth/passwords.js';
import { assertMayGrant, assertMayManage, removesEnabledSuperadmin } from './rules.js';

/**
 * Administrator accounts behind their routes (routes.ts). `scope` is the one organization the
 * acting administrator may see, null for a superadmin; `actor` is that administrator (the
 * rules in rules.ts), `by` who did it for the audit log.
 */
type Deps = Pick<AppContext, 'models' | 'db' | 'clock' | 'audit' | 'sessions' | 'throttle'>;
type Actor = Pick<AdministratorRow, 'id' | 'role' | 'organizationId'>;
type By = Pick<AuditEntry, 'actor' | 'organizationId' | 'ip'>;
type Out = z.infer<typeof administratorOut>;
type WithPassword = z.infer<typeof administratorWithPassword>;

export function toAdministratorOut(a: AdministratorRow): Out {
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
    etag: editTagOf('administrator', [a.displayName, a.role, a.disabled, a.organizationId]),
  };
}

const usernameTaken = (username: string) =>
  httpErrors.conflict(`The username "${username}" is already taken.`, {
    reason: 'username_taken',
    username,
  });

/** An account the scope may see; 404 otherwise (another organization's is like a missing one). */
export async function findAdministrator(
  deps: Pick<AppContext, 'models'>,
  scope: string | null,
  id: string,
): Promise<AdministratorRow> {
  const row = await deps.models.Administrator.findByPk(id);
  if (!row || (scope !== null && row.organizationId !== scope)) {
    throw httpErrors.notFound('Administrator not found.');
  }
  return row;
}

export async function listAdministrators(
  deps: Deps,
  scope: string | null,
  query: {
    q?: string | undefined;
    role?: AdministratorRow['role'] | undefined;
    page: number;
    pageSize: number;
  },
): Promise<{ items: Out[]; total: number }> {
  const and: WhereOptions<AdministratorRow>[] = [scope === null ? {} : { organizationId: scope }];
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
  const { rows, count } = await deps.models.Administrator.findAndCountAll({
    where: { [Op.and]: and },
    order: [['username', 'ASC']],
    limit: query.pageSize,
    offset: (query.page - 1) * query.pageSize,
  });
  return { items: rows.map(toAdministratorOut), total: count };
}

export async function createAdministrator(
  deps: Deps,
  actor: Actor,
  body: z.infer<typeof administratorCreate>,
  by: By,
): Promise<WithPassword> {
  const organizationId = body.organizationId ?? actor.organizationId;
  assertMayGrant(actor, body.role, organizationId);
  if (!(await deps.models.Organization.findByPk(organizationId))) {
    throw invalidFields({ organizationId: { code: 'no_such_organization' } });
  }
  if (await deps.models.Administrator.findOne({ where: { username: body.username } })) {
    throw usernameTaken(body.username);
  }
  const password = generatePassword();
  const passwordHash = await hashPassword(password);
  const now = deps.clock.now();
  let created: AdministratorRow;
  try {
    created = await deps.db.sequelize.transaction(async (transaction) => {
      const row = await deps.models.Administrator.create(
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
      await deps.audit.record(
        {
          action: 'admin.create',
          target: { type: 'administrator', id: row.id },
          summary: `created administrator ${row.username} (${row.role}) in organization ${organizationId}; one-time password issued, change required at sign-in`,
          message: {
            code: 'administrator_created',
            params: { username: row.username, role: row.role },
          },
          ...by,
        },
        transaction,
      );
      return row;
    });
  } catch (err) {
    if (err instanceof UniqueConstraintError) throw usernameTaken(body.username);
    throw err;
  }
  return { ...toAdministratorOut(created), temporaryPassword: password };
}

/** Rename, change the role of, disable (ending their sessions) or enable an account. */
export async function updateAdministrator(
  deps: Deps,
  actor: Actor,
  scope: string | null,
  id: string,
  body: z.infer<typeof administratorUpdate>,
  by: By,
  ifMatch?: readonly string[],
): Promise<Out> {
  const target = await findAdministrator(deps, scope, id);
  assertMayManage(actor, target);
  const role = body.role !== undefined && body.role !== target.role ? body.role : undefined;
  const disabled =
    body.disabled !== undefined && body.disabled !== target.disabled ? body.disabled : undefined;
  const displayName =
    body.displayName !== undefined && body.displayName !== target.displayName
      ? body.displayName
      : undefined;
  const organizationId =
    body.organizationId !== undefined && body.organizationId !== target.organizationId
      ? body.organizationId
      : undefined;
  if (role) assertMayGrant(actor, role, organizationId ?? target.organizationId);
  if (organizationId) {
    assertMayGrant(actor, role ?? target.role, organizationId);
    if (!(await deps.models.Organization.findByPk(organizationId))) {
      throw httpErrors.invalidInput({ organizationId: 'no such organization' });
    }
  }

  const updated = await deps.db.sequelize.transaction(async (transaction) => {
    // Locks the enabled superadmins (FOR UPDATE on MySQL; SQLite's write lock is taken at
    // BEGIN), so two superadmins demoting each other at once cannot leave none.
    if (removesEnabledSuperadmin(target, { role, disabled })) {
      const enabled = await deps.models.Administrator.findAll({
        where: { role: 'superadmin', disabled: false },
        lock: transaction.LOCK.UPDATE,
        transaction,
      });
      if (!enabled.some((a) => a.id !== target.id)) {
        throw httpErrors.conflict(
          `${target.username} is the last enabled super administrator; make another super administrator first.`,
          { reason: 'last_superadmin', username: target.username },
        );
      }
    }
    if (target.id === actor.id && role) {
      throw httpErrors.forbidden('Nobody changes their own role; ask another administrator.');
    }
    if (target.id === actor.id && disabled) {
      throw httpErrors.forbidden('You cannot disable your own account.');
    }
    const fresh = await deps.models.Administrator.findByPk(target.id, {
      transaction,
      lock: transaction.LOCK.UPDATE,
    });
    if (!fresh) throw httpErrors.notFound('Administrator not found.');
    assertUnchanged(ifMatch, toAdministratorOut(fresh).etag, 'administrator');
    const described: string[] = [];
    if (displayName !== undefined) described.push('display name changed');
    if (organizationId) described.push('moved to another organization');
    if (role) described.push(`role ${fresh.role} → ${role}`);
    if (disabled === true) described.push('disabled; sessions ended');
    if (disabled === false) described.push('enabled');
    if (described.length === 0) return fresh;
    await fresh.update(
      {
        ...(displayName !== undefined && { displayName }),
        ...(role && { role }),
        ...(disabled !== undefined && { disabled }),
        ...(organizationId && { organizationId }),
        updatedAt: deps.clock.now(),
      },
      { transaction },
    );
    if (disabled) await deps.sessions.destroyAllFor(fresh.id, transaction);
    await deps.audit.record(
      {
        action: 'admin.update',
        target: { type: 'administrator', id: fresh.id },
        summary: `administrator ${fresh.username}: ${described.join('; ')}`,
        message: {
          code: 'administrator_updated',
          params: {
            username: fresh.username,
            displayName: String(displayName !== undefined),
            previousRole: fresh.role,
            role: role ?? 'unchanged',
            state: disabled === undefined ? 'unchanged' : disabled ? 'disabled' : 'enabled',
            organization: organizationId ? 'moved' : 'unchanged',
          },
        },
        ...by,
      },
      transaction,
    );
    return fresh;
  });
  return toAdministratorOut(updated);
}

/** A new one-time password; change required at sign-in, sessions ended, lockout cleared. */
export async function resetPassword(
  deps: Deps,
  actor: Actor,
  scope: string | null,
  id: string,
  by: By,
): Promise<WithPassword> {
  const target = await findAdministrator(deps, scope, id);
  assertMayManage(actor, target);
  if (target.id === actor.id) {
    // A session alone must not be enough to take over an account for good.
    throw httpErrors.forbidden(
      'Change your own password with POST /api/auth/password (it asks for the current one).',
    );
  }
  const password = generatePassword();
  const passwordHash = await hashPassword(password);
  await deps.db.sequelize.transaction(async (transaction) => {
    await target.update(
      { passwordHash, mustChangePassword: true, updatedAt: deps.clock.now() },
      { transaction },
    );
    await deps.sessions.destroyAllFor(target.id, transaction);
    await deps.audit.record(
      {
        action: 'admin.password_reset',
        target: { type: 'administrator', id: target.id },
        summary: `password of ${target.username} reset; one-time password issued, change required at sign-in; sessions ended; lockout cleared`,
        message: { code: 'administrator_password_reset', params: { username: target.username } },
        ...by,
      },
      transaction,
    );
  });
  await deps.throttle.clearUser(target.username);
  return { ...toAdministratorOut(target), temporaryPassword: password };
}
