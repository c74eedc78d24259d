import { randomUUID } from 'node:crypto';
import { Op, Sequelize } from 'sequelize';
import type { z } from 'zod';
import type { organizationList, organizationOut } from '@svc/shared';
import type { AuditEntry } from '../audit/audit.js';
import type { AppContext } from '../platform/context.js';
import type { OrganizationRow } from '../platform/db/models.js';
import type { Transaction } from 'sequelize';
import { httpErrors } from '../platform/http/errors.js';
import { assertUnchanged, editTagOf } from '../platform/http/etag.js';

/**
 * Organizations behind their routes (routes.ts). `scope` is the one organization an
 * administrator may see, or null for a superadmin (every one).
 */
type Deps = Pick<AppContext, 'models' | 'db' | 'clock' | 'audit'>;
type Actor = Pick<AuditEntry, 'actor' | 'organizationId' | 'ip'>;
type OrganizationOut = z.infer<typeof organizationOut>;

export function toOrganizationOut(o: OrganizationRow): OrganizationOut {
  return {
    id: o.id,
    name: o.name,
    createdAt: o.createdAt.toISOString(),
    updatedAt: o.updatedAt.toISOString(),
    etag: editTagOf('organization', [o.name]),
  };
}

export async function listOrganizations(
  deps: Deps,
  scope: string | null,
): Promise<z.infer<typeof organizationList>> {
  const { rows, count } = await deps.models.Organization.findAndCountAll({
    where: scope === null ? {} : { id: scope },
    order: [['name', 'ASC']],
  });
  return { items: rows.map(toOrganizationOut), total: count };
}

export async function createOrganization(
  deps: Deps,
  name: string,
  actor: Actor,
): Promise<OrganizationOut> {
  await assertNameFree(deps, name);
  const now = deps.clock.now();
  const created = await deps.db.sequelize.transaction(async (transaction) => {
    const row = await deps.models.Organization.create(
      { id: randomUUID(), name, createdAt: now, updatedAt: now },
      { transaction },
    );
    await deps.audit.record(
      {
        action: 'organization.create',
        target: { type: 'organization', id: row.id },
        summary: `created organization "${row.name}"`,
        message: { code: 'organization_created', params: { name: row.name } },
        ...actor,
      },
      transaction,
    );
    return row;
  });
  return toOrganizationOut(created);
}

export async function renameOrganization(
  deps: Deps,
  scope: string | null,
  id: string,
  name: string,
  actor: Actor,
  ifMatch?: readonly string[],
): Promise<OrganizationOut> {
  return deps.db.sequelize.transaction(async (transaction) => {
    const row = await deps.models.Organization.findByPk(id, {
      transaction,
      lock: transaction.LOCK.UPDATE,
    });
    // Another organization answers like a missing one (no probing of ids).
    if (!row || (scope !== null && row.id !== scope)) {
      throw httpErrors.notFound('Organization not found.');
    }
    assertUnchanged(ifMatch, toOrganizationOut(row).etag, 'organization');
    if (row.name === name) return toOrganizationOut(row);
    await assertNameFree(deps, name, row.id, transaction);
    const previous = row.name;
    await row.update({ name, updatedAt: deps.clock.now() }, { transaction });
    await deps.audit.record(
      {
        action: 'organization.rename',
        target: { type: 'organization', id: row.id },
        summary: `renamed organization "${previous}" to "${row.name}"`,
        message: { code: 'organization_renamed', params: { previous, name: row.name } },
        ...actor,
      },
      transaction,
    );
    return toOrganizationOut(row);
  });
}

/** Two organizations with one name (in any case) would be indistinguishable in every list. */
async function assertNameFree(
  deps: Deps,
  name: string,
  exceptId?: string,
  transaction?: Transaction,
): Promise<void> {
  const taken = await deps.models.Organization.findOne({
    transaction,
    where: {
      [Op.and]: [
        Sequelize.where(Sequelize.fn('LOWER', Sequelize.col('name')), name.toLowerCase()),
        ...(exceptId ? [{ id: { [Op.ne]: exceptId } }] : []),
      ],
    },
  });
  if (taken)
    throw httpErrors.conflict(`An organization named "${taken.name}" already exists.`, {
      reason: 'organization_name_taken',
      name: taken.name,
    });
}
