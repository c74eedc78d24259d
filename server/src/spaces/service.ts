import { randomUUID } from 'node:crypto';
import { ForeignKeyConstraintError, type Transaction } from 'sequelize';
import type { SpaceCreate, SpaceOut } from '@svc/shared';
import type { AppContext } from '../platform/context.js';
import type { AuditEntry } from '../audit/audit.js';
import type { SpaceRow } from '../platform/db/business-models.js';
import { ErrorCode, formatMessage } from '@svc/shared';
import { HttpError, httpErrors } from '../platform/http/errors.js';
import { assertUnchanged, editTagOf } from '../platform/http/etag.js';
import { loadSpaceTree } from './tree.js';
import { inTransaction } from '../platform/db/transaction.js';

/** Who made a change, for the audit log (auditActor(req) for an administrator). */
export type Actor = Pick<AuditEntry, 'actor' | 'organizationId' | 'ip'>;

type Deps = Pick<AppContext, 'models' | 'db' | 'clock' | 'audit'>;

export function toSpaceOut(row: SpaceRow): SpaceOut {
  return {
    id: row.id,
    organizationId: row.organizationId,
    parentId: row.parentId,
    name: row.name,
    createdAt: row.createdAt.toISOString(),
    updatedAt: row.updatedAt.toISOString(),
    etag: editTagOf('space', [row.name, row.parentId]),
  };
}

/** Names compare as a person reads them: case, accents' encoding and outer spaces aside. */
const nameKey = (name: string) => name.normalize('NFC').trim().toLocaleLowerCase('und');

/**
 * 409 `duplicate_space_name` when another space under the same parent (or at the root) has this
 * name. Takes the organization's row lock first, so two administrators creating the same name at
 * once are serialized on MariaDB (SQLite writers are already one at a time); no unique index,
 * since root spaces have a NULL parent and MariaDB and SQLite compare case differently.
 */
async function assertNameFree(
  deps: Pick<AppContext, 'models'>,
  t: Transaction,
  space: { organizationId: string; parentId: string | null; name: string; id?: string },
): Promise<void> {
  await deps.models.Organization.findOne({
    where: { id: space.organizationId },
    transaction: t,
    lock: t.LOCK.UPDATE,
  });
  const siblings = await deps.models.Space.findAll({
    attributes: ['id', 'name'],
    where: { organizationId: space.organizationId, parentId: space.parentId },
    transaction: t,
  });
  const key = nameKey(space.name);
  const taken = siblings.find((s) => s.id !== space.id && nameKey(s.name) === key);
  if (taken) {
    throw new HttpError(
      409,
      ErrorCode.duplicateSpaceName,
      `A space named "${taken.name}" already exists ${space.parentId ? 'in this parent space' : 'at the top level'}; choose another name.`,
      { name: formatMessage('space_name_used', { name: taken.name }) },
      undefined,
      {
        params: { name: taken.name },
        fieldCodes: { name: { code: 'space_name_used', params: { name: taken.name } } },
      },
    );
  }
}

/** Runs `fn` in the caller's transaction, or in a new one. */
const parentNotFound = () => httpErrors.notFound('Parent space not found.');

/** A space by id, limited to one organization unless `organizationId` is null (superadmin). */
export async function findSpace(
  deps: Pick<AppContext, 'models'>,
  organizationId: string | null,
  id: string,
  transaction?: Transaction,
): Promise<SpaceRow | null> {
  return deps.models.Space.findOne({
    where: organizationId ? { id, organizationId } : { id },
    transaction,
  });
}

/** Creates a space; a parent must be a space of the same organization (else 404). */
export async function createSpace(
  deps: Deps,
  organizationId: string,
  input: SpaceCreate,
  actor: Actor,
  transaction?: Transaction,
): Promise<SpaceOut> {
  return inTransaction(deps, transaction, async (t) => {
    const parentId = input.parentId ?? null;
    if (parentId && !(await findSpace(deps, organizationId, parentId, t))) throw parentNotFound();
    await assertNameFree(deps, t, { organizationId, parentId, name: input.name });
    const now = deps.clock.now();
    const row = await deps.models.Space.create(
      {
        id: randomUUID(),
        organizationId,
        parentId,
        name: input.name,
        createdAt: now,
        updatedAt: now,
      },
      { transaction: t },
    );
    await deps.audit.record(
      {
        ...actor,
        organizationId,
        action: 'space.create',
        target: { type: 'space', id: row.id },
        summary: `Created space "${row.name}"${parentId ? ' under another space' : ' at the root'}`,
        message: { code: 'space_created', params: { name: row.name, root: String(!parentId) } },
      },
      t,
    );
    return toSpaceOut(row);
  });
}

/**
 * Renames and/or moves a space (parentId null = to the root). Moving a space under itself or
 * one of its descendants is refused with 409; a parent of another organization is 404.
 */
export async function updateSpace(
  deps: Deps,
  organizationId: string | null,
  id: string,
  changes: Partial<SpaceCreate>,
  actor: Actor,
  transaction?: Transaction,
  ifMatch?: readonly string[],
): Promise<SpaceOut> {
  return inTransaction(deps, transaction, async (t) => {
    const row = await deps.models.Space.findOne({
      where: organizationId ? { id, organizationId } : { id },
      transaction: t,
      lock: t.LOCK.UPDATE,
    });
    if (!row) throw httpErrors.notFound('Space not found.');
    assertUnchanged(ifMatch, toSpaceOut(row).etag, 'space');
    const changed: string[] = [];
    const previousName = row.name;
    let moved = 'no';
    if (changes.name !== undefined && changes.name !== row.name) {
      changed.push(`renamed from "${row.name}" to "${changes.name}"`);
      row.name = changes.name;
    }
    const parentId = changes.parentId;
    if (parentId !== undefined && parentId !== row.parentId) {
      if (parentId !== null) {
        const tree = await loadSpaceTree(deps, row.organizationId, t);
        if (!tree.has(parentId)) throw parentNotFound();
        if (tree.isSelfOrDescendant(row.id, parentId)) {
          throw httpErrors.conflict(
            parentId === row.id
              ? 'A space cannot be its own parent.'
              : 'A space cannot be moved under one of its own descendants; that would make a cycle.',
            { reason: parentId === row.id ? 'space_own_parent' : 'space_cycle' },
          );
        }
      }
      changed.push(parentId === null ? 'moved to the root' : 'moved under another space');
      moved = parentId === null ? 'root' : 'space';
      row.parentId = parentId;
    }
    if (changed.length === 0) return toSpaceOut(row);
    await assertNameFree(deps, t, row);
    row.updatedAt = deps.clock.now();
    await row.save({ transaction: t });
    await deps.audit.record(
      {
        ...actor,
        organizationId: row.organizationId,
        action: 'space.update',
        target: { type: 'space', id: row.id },
        summary: `Space "${row.name}": ${changed.join('; ')}`,
        message: {
          code: 'space_updated',
          params: { name: row.name, previousName, moved },
        },
      },
      t,
    );
    return toSpaceOut(row);
  });
}

function plural(n: number, one: string, many: string): string {
  return `${n} ${n === 1 ? one : many}`;
}

/** What keeps a space from being deleted, as counts. */
export async function spaceDependents(
  deps: Pick<AppContext, 'models'>,
  id: string,
  transaction?: Transaction,
): Promise<{ people: number; devices: number; children: number }> {
  const [people, devices, children] = await Promise.all([
    deps.models.PersonSpace.count({ where: { spaceId: id }, transaction }),
    deps.models.Device.count({ where: { spaceId: id }, transaction }),
    deps.models.Space.count({ where: { parentId: id }, transaction }),
  ]);
  return { people, devices, children };
}

function dependentsMessage(d: { people: number; devices: number; children: number }): string {
  const parts: string[] = [];
  const access: string[] = [];
  if (d.people > 0) access.push(plural(d.people, 'person', 'people'));
  if (d.devices > 0) access.push(plural(d.devices, 'device', 'devices'));
  if (access.length > 0) {
    const many = d.people + d.devices > 1;
    parts.push(
      `${access.join(' and ')} ${many ? 'have' : 'has'} access to this space; remove them first`,
    );
  }
  if (d.children > 0) {
    parts.push(
      `it has ${plural(d.children, 'child space', 'child spaces')}; move or delete ${d.children === 1 ? 'it' : 'them'} first`,
    );
  }
  return `This space cannot be deleted: ${parts.join('; ')}.`;
}

/** Deletes a space nothing depends on; otherwise 409 saying what depends on it. */
export async function deleteSpace(
  deps: Deps,
  organizationId: string | null,
  id: string,
  actor: Actor,
  transaction?: Transaction,
): Promise<void> {
  await inTransaction(deps, transaction, async (t) => {
    const row = await deps.models.Space.findOne({
      where: organizationId ? { id, organizationId } : { id },
      transaction: t,
      lock: t.LOCK.UPDATE,
    });
    if (!row) throw httpErrors.notFound('Space not found.');
    const dependents = await spaceDependents(deps, id, t);
    if (dependents.people + dependents.devices + dependents.children > 0) {
      throw httpErrors.conflict(dependentsMessage(dependents), {
        reason: 'space_in_use',
        ...dependents,
      });
    }
    try {
      await row.destroy({ transaction: t });
    } catch (err) {
      // Something started depending on the space after the count: the foreign key says no.
      if (err instanceof ForeignKeyConstraintError) {
        throw httpErrors.conflict(
          'This space cannot be deleted: something started depending on it; try again.',
          { reason: 'space_in_use_now' },
        );
      }
      throw err;
    }
    await deps.audit.record(
      {
        ...actor,
        organizationId: row.organizationId,
        action: 'space.delete',
        target: { type: 'space', id: row.id },
        summary: `Deleted space "${row.name}"`,
        message: { code: 'space_deleted', params: { name: row.name } },
      },
      t,
    );
  });
}
