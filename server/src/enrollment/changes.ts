import { randomUUID } from 'node:crypto';
import type {
  EnrollmentChangeOut,
  EnrollmentChangesQuery,
  EnrollmentChangeState,
  PersonOut,
} from '@svc/shared';
import type { Transaction } from 'sequelize';
import type { AppContext } from '../platform/context.js';
import type { EnrollmentChangeRow } from '../platform/db/enrollment-models.js';
import { httpErrors } from '../platform/http/errors.js';
import { updatePerson, type Actor } from '../people/service.js';

type Deps = Pick<AppContext, 'models' | 'db' | 'clock' | 'audit' | 'photos' | 'logger'>;

/** Organization scope of the caller: a superadmin (null) sees every organization. */
type Scope = string | null;

export function toChangeOut(row: EnrollmentChangeRow): EnrollmentChangeOut {
  return {
    id: row.id,
    organizationId: row.organizationId,
    personId: row.personId,
    terminalId: row.terminalId,
    ip: row.ip,
    state: row.state,
    oldName: row.oldName,
    newName: row.newName,
    oldPhotoSha256: row.oldPhotoSha256,
    newPhotoSha256: row.newPhotoSha256,
    createdAt: row.createdAt.toISOString(),
    decidedAt: row.decidedAt?.toISOString() ?? null,
    decidedBy: row.decidedBy,
  };
}

/**
 * A re-enrollment that would change the person's name or photo, held for review instead of
 * applied: a terminal token alone must not put a new face on someone who may open doors. A
 * newer one for the same person supersedes a pending one. Null when nothing would change.
 */
export async function proposeChange(
  deps: Deps,
  terminal: { id: string; ip: string },
  person: PersonOut,
  wanted: { name: string; photoSha256: string },
  actor: Actor,
  transaction: Transaction,
): Promise<EnrollmentChangeRow | null> {
  if (wanted.name === person.name && wanted.photoSha256 === person.photoSha256) return null;
  // One re-enrollment of a person at a time: the later one supersedes the earlier in order.
  await deps.models.Person.findByPk(person.id, {
    attributes: ['id'],
    transaction,
    lock: transaction.LOCK.UPDATE,
  });
  const now = deps.clock.now();
  await deps.models.EnrollmentChange.update(
    { state: 'superseded', decidedAt: now },
    { where: { personId: person.id, state: 'pending' }, transaction },
  );
  const row = await deps.models.EnrollmentChange.create(
    {
      id: randomUUID(),
      organizationId: person.organizationId,
      personId: person.id,
      terminalId: terminal.id,
      ip: terminal.ip.slice(0, 64),
      state: 'pending',
      oldName: person.name,
      newName: wanted.name,
      oldPhotoSha256: person.photoSha256,
      newPhotoSha256: wanted.photoSha256,
      createdAt: now,
      decidedAt: null,
      decidedBy: null,
    },
    { transaction },
  );
  const what = [
    wanted.name !== person.name && 'name',
    wanted.photoSha256 !== person.photoSha256 && 'photo',
  ].filter(Boolean);
  await deps.audit.record(
    {
      ...actor,
      organizationId: person.organizationId,
      action: 'enrollment.change_request',
      target: { type: 'person', id: person.id },
      summary: `re-enrollment by terminal ${terminal.id} would change the ${what.join(' and ')}: held for review as change ${row.id}`,
      message: {
        code: 'enrollment_change_held',
        params: {
          terminal: terminal.id,
          parts: what.length > 1 ? 'both' : String(what[0]),
          change: row.id,
        },
      },
    },
    transaction,
  );
  return row;
}

export async function listChanges(
  deps: Pick<AppContext, 'models'>,
  scope: Scope,
  query: EnrollmentChangesQuery,
): Promise<{ items: EnrollmentChangeOut[]; total: number }> {
  const { rows, count } = await deps.models.EnrollmentChange.findAndCountAll({
    where: {
      ...(scope && { organizationId: scope }),
      ...(query.state && { state: query.state }),
      ...(query.personId && { personId: query.personId }),
    },
    order: [
      ['createdAt', 'ASC'],
      ['id', 'ASC'],
    ],
    limit: query.pageSize,
    offset: (query.page - 1) * query.pageSize,
  });
  return { items: rows.map(toChangeOut), total: count };
}

export async function findChange(
  deps: Pick<AppContext, 'models'>,
  scope: Scope,
  id: string,
  transaction?: Transaction,
): Promise<EnrollmentChangeRow> {
  const row = await deps.models.EnrollmentChange.findOne({
    where: { id, ...(scope && { organizationId: scope }) },
    transaction,
    ...(transaction && { lock: transaction.LOCK.UPDATE }),
  });
  if (!row) throw httpErrors.notFound('Enrollment change not found.');
  return row;
}

/**
 * Approves (applies the name and photo through the people service, which raises the version
 * so the devices get the new photo) or rejects a pending change. Both are audited.
 */
export async function decideChange(
  deps: Deps,
  scope: Scope,
  id: string,
  decision: Extract<EnrollmentChangeState, 'approved' | 'rejected'>,
  actor: Actor,
): Promise<EnrollmentChangeOut> {
  return deps.db.sequelize.transaction(async (transaction) => {
    const row = await findChange(deps, scope, id, transaction);
    if (row.state !== 'pending') {
      throw httpErrors.conflict(
        `This change was already ${row.state}${row.decidedAt ? ` at ${row.decidedAt.toISOString()}` : ''}; only a pending change can be decided.`,
        { reason: 'change_already_decided', state: row.state },
      );
    }
    if (decision === 'approved') {
      await updatePerson(
        deps,
        row.organizationId,
        row.personId,
        { name: row.newName, photoSha256: row.newPhotoSha256 },
        actor,
        transaction,
      );
    }
    await row.update(
      { state: decision, decidedAt: deps.clock.now(), decidedBy: actor.actor?.name ?? null },
      { transaction },
    );
    await deps.audit.record(
      {
        ...actor,
        organizationId: row.organizationId,
        action: decision === 'approved' ? 'enrollment.change_approve' : 'enrollment.change_reject',
        target: { type: 'person', id: row.personId },
        summary: `${decision === 'approved' ? 'approved' : 'rejected'} re-enrollment change ${row.id} from terminal ${row.terminalId}`,
        message: {
          code: 'enrollment_change_decided',
          params: { decision, change: row.id, terminal: row.terminalId },
        },
      },
      transaction,
    );
    return toChangeOut(row);
  });
}
