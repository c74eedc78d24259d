import { randomUUID } from 'node:crypto';
import { SettingKey } from '../settings/runtime-settings.js';
import { Op, UniqueConstraintError, type InferAttributes, type Transaction } from 'sequelize';
import {
  displayNameProblem,
  ErrorCode,
  formatMessage,
  idNumber as idNumberSchema,
  issueMessage,
  type PersonCreate,
  type PersonOut,
  type PersonUpdate,
} from '@svc/shared';
import type { AppContext } from '../platform/context.js';
import type { AuditEntry } from '../audit/audit.js';
import type { PersonRow } from '../platform/db/business-models.js';
import { HttpError, httpErrors, invalidFields } from '../platform/http/errors.js';
import { assertUnchanged, editTagOf } from '../platform/http/etag.js';
import { canonicalIdNumber, nameKey } from './keys.js';
import { inTransaction } from '../platform/db/transaction.js';

/** Who made a change, for the audit log (auditActor(req) for an administrator). */
export type Actor = Pick<AuditEntry, 'actor' | 'organizationId' | 'ip'>;

/** Fields a caller may set besides the API's: the photo store's reference (photo helpers). */
export type PersonInput = PersonCreate & { photoSha256?: string | null };
export type PersonChanges = PersonUpdate & { photoSha256?: string | null };

type Deps = Pick<AppContext, 'models' | 'db' | 'clock' | 'audit' | 'photos' | 'logger'>;

/** Changes to these reach the devices, so they raise `version` (synchronization compares it). */
const DEVICE_FIELDS = new Set([
  'name',
  'idNumber',
  'validFrom',
  'validUntil',
  'enabled',
  'spaceIds',
  'photoSha256',
]);

export function toPersonOut(row: PersonRow, spaceIds: readonly string[]): PersonOut {
  return {
    id: row.id,
    organizationId: row.organizationId,
    name: row.name,
    idNumber: row.idNumber,
    phone: row.phone,
    notes: row.notes,
    validFrom: row.validFrom?.toISOString() ?? null,
    validUntil: row.validUntil?.toISOString() ?? null,
    enabled: Boolean(row.enabled),
    spaceIds: [...spaceIds].sort(),
    photoSha256: row.photoSha256,
    version: row.version,
    createdAt: row.createdAt.toISOString(),
    updatedAt: row.updatedAt.toISOString(),
    // The fields of the edit form; the photo has its own upload and leaves an open edit valid.
    etag: editTagOf('person', [
      row.name,
      row.idNumber,
      row.phone,
      row.notes,
      row.validFrom?.getTime() ?? null,
      row.validUntil?.getTime() ?? null,
      Boolean(row.enabled),
      [...spaceIds].sort(),
    ]),
  };
}

/** Space ids of each person, sorted. */
export async function spaceIdsOf(
  deps: Pick<AppContext, 'models'>,
  personIds: readonly string[],
  transaction?: Transaction,
): Promise<Map<string, string[]>> {
  const out = new Map<string, string[]>(personIds.map((id) => [id, []]));
  if (personIds.length === 0) return out;
  const rows = await deps.models.PersonSpace.findAll({
    where: { personId: [...personIds] },
    raw: true,
    transaction,
  });
  for (const r of rows) out.get(r.personId)?.push(r.spaceId);
  for (const ids of out.values()) ids.sort();
  return out;
}

const scoped = (organizationId: string | null, id: string) =>
  organizationId ? { id, organizationId } : { id };

/** One person, limited to an organization unless `organizationId` is null (superadmin). */
export async function findPerson(
  deps: Pick<AppContext, 'models'>,
  organizationId: string | null,
  id: string,
  transaction?: Transaction,
): Promise<PersonOut | null> {
  const row = await deps.models.Person.findOne({ where: scoped(organizationId, id), transaction });
  if (!row) return null;
  return toPersonOut(row, (await spaceIdsOf(deps, [row.id], transaction)).get(row.id)!);
}

/** The person of an organization with this ID number (compared in its canonical form). */
export async function findByIdNumber(
  deps: Pick<AppContext, 'models'>,
  organizationId: string,
  idNumber: string,
  transaction?: Transaction,
): Promise<PersonOut | null> {
  const row = await deps.models.Person.findOne({
    where: { organizationId, idNumber: canonicalIdNumber(idNumber) },
    transaction,
  });
  if (!row) return null;
  return toPersonOut(row, (await spaceIdsOf(deps, [row.id], transaction)).get(row.id)!);
}

const idNumberTaken = () =>
  new HttpError(
    409,
    ErrorCode.conflict,
    'Another person in this organization already has this ID number.',
    { idNumber: formatMessage('id_number_used') },
    undefined,
    { params: { reason: 'id_number_taken' }, fieldCodes: { idNumber: { code: 'id_number_used' } } },
  );

/** The canonical ID number, re-checked: canonicalizing can lengthen it ("ß" → "SS"). */
function checkedIdNumber(raw: string): string {
  const canonical = canonicalIdNumber(raw);
  const parsed = idNumberSchema.safeParse(canonical);
  if (!parsed.success || parsed.data !== canonical) {
    const first = parsed.error?.issues[0];
    throw invalidFields({ idNumber: first ? issueMessage(first) : { code: 'format_id_number' } });
  }
  return canonical;
}

/** The display-name rule of the shared schemas, again for callers that did not parse one. */
export function checkedName(name: string): string {
  const problem = displayNameProblem(name);
  if (problem) throw invalidFields({ name: { code: problem } });
  return name;
}

function toDate(field: string, value: string | null | undefined): Date | null {
  if (value === null || value === undefined) return null;
  const date = new Date(value);
  if (Number.isNaN(date.getTime())) throw invalidFields({ [field]: { code: 'invalid_time' } });
  return date;
}

function checkWindow(validFrom: Date | null, validUntil: Date | null): void {
  if (validFrom && validUntil && validFrom.getTime() >= validUntil.getTime()) {
    throw invalidFields({ validUntil: { code: 'valid_window' } });
  }
}

/** Distinct space ids, each a space of the organization (else 400 on spaceIds). */
async function checkedSpaceIds(
  deps: Pick<AppContext, 'models'>,
  organizationId: string,
  spaceIds: readonly string[],
  transaction: Transaction,
): Promise<string[]> {
  const ids = [...new Set(spaceIds)].sort();
  if (ids.length === 0) return ids;
  const found = await deps.models.Space.count({
    where: { organizationId, id: { [Op.in]: ids } },
    transaction,
  });
  if (found !== ids.length) {
    throw invalidFields({ spaceIds: { code: 'no_such_space' } });
  }
  return ids;
}

async function assertIdNumberFree(
  deps: Pick<AppContext, 'models'>,
  organizationId: string,
  idNumber: string,
  exceptId: string | undefined,
  transaction: Transaction,
): Promise<void> {
  const other = await deps.models.Person.findOne({
    attributes: ['id'],
    where: { organizationId, idNumber },
    transaction,
  });
  if (other && other.id !== exceptId) throw idNumberTaken();
}

/** Releases a photo once the change is committed; the photo store failing never undoes it. */
function releaseAfterCommit(deps: Deps, transaction: Transaction, sha256: string | null): void {
  if (!sha256) return;
  transaction.afterCommit(async () => {
    try {
      await deps.photos.releaseIfUnreferenced(sha256);
    } catch (err) {
      deps.logger.warn({ err: { message: (err as Error).message } }, 'photo release failed');
    }
  });
}

async function saving<T>(fn: () => Promise<T>): Promise<T> {
  try {
    return await fn();
  } catch (err) {
    // Two writers raced past the check: the unique index has the last word.
    if (err instanceof UniqueConstraintError) throw idNumberTaken();
    throw err;
  }
}

/** Creates a person in an organization; 409 if the ID number is taken, 400 for bad spaceIds. */
export async function createPerson(
  deps: Deps,
  organizationId: string,
  input: PersonInput,
  actor: Actor,
  transaction?: Transaction,
): Promise<PersonOut> {
  const name = checkedName(input.name);
  const idNumber = checkedIdNumber(input.idNumber);
  const validFrom = toDate('validFrom', input.validFrom);
  const validUntil = toDate('validUntil', input.validUntil);
  checkWindow(validFrom, validUntil);
  return inTransaction(deps, transaction, async (t) => {
    const spaceIds = await checkedSpaceIds(deps, organizationId, input.spaceIds ?? [], t);
    await assertIdNumberFree(deps, organizationId, idNumber, undefined, t);
    const now = deps.clock.now();
    const row = await saving(() =>
      deps.models.Person.create(
        {
          id: randomUUID(),
          organizationId,
          name,
          nameKey: nameKey(name),
          idNumber,
          phone: input.phone || null,
          notes: input.notes ?? null,
          validFrom,
          validUntil,
          enabled: input.enabled ?? true,
          photoSha256: input.photoSha256 ?? null,
          version: 1,
          createdAt: now,
          updatedAt: now,
        },
        { transaction: t },
      ),
    );
    if (spaceIds.length > 0) {
      await deps.models.PersonSpace.bulkCreate(
        spaceIds.map((spaceId) => ({ personId: row.id, spaceId, nameKey: row.nameKey })),
        { transaction: t },
      );
    }
    const given = Object.keys(input).filter((k) => input[k as keyof PersonInput] !== undefined);
    await deps.audit.record(
      {
        ...actor,
        organizationId,
        action: 'person.create',
        target: { type: 'person', id: row.id },
        summary: `Created a person (fields: ${given.sort().join(', ')})`,
        message: { code: 'person_created', params: { fields: given.sort().join(',') } },
      },
      t,
    );
    return toPersonOut(row, spaceIds);
  });
}

const sameTime = (a: Date | null, b: Date | null) =>
  (a?.getTime() ?? null) === (b?.getTime() ?? null);

/**
 * Applies any subset of a person's fields (spaceIds replaces the set). `version` rises when a
 * field the devices see changes; nothing changed means nothing written and nothing audited.
 */
export async function updatePerson(
  deps: Deps,
  organizationId: string | null,
  id: string,
  changes: PersonChanges,
  actor: Actor,
  transaction?: Transaction,
  ifMatch?: readonly string[],
): Promise<PersonOut> {
  return inTransaction(deps, transaction, async (t) => {
    const row = await deps.models.Person.findOne({
      where: scoped(organizationId, id),
      transaction: t,
      lock: t.LOCK.UPDATE,
    });
    if (!row) throw httpErrors.notFound('Person not found.');
    let spaceIds = (await spaceIdsOf(deps, [row.id], t)).get(row.id)!;
    assertUnchanged(ifMatch, toPersonOut(row, spaceIds).etag, 'person');
    const changed: string[] = [];
    const set = <K extends keyof InferAttributes<PersonRow>>(
      key: K,
      value: InferAttributes<PersonRow>[K],
    ) => {
      changed.push(key);
      row.set(key, value);
    };

    if (changes.name !== undefined && changes.name !== row.name) {
      set('name', checkedName(changes.name));
      row.nameKey = nameKey(changes.name);
    }
    if (changes.idNumber !== undefined) {
      const idNumber = checkedIdNumber(changes.idNumber);
      if (idNumber !== row.idNumber) {
        await assertIdNumberFree(deps, row.organizationId, idNumber, row.id, t);
        set('idNumber', idNumber);
      }
    }
    if (changes.phone !== undefined && (changes.phone || null) !== row.phone) {
      set('phone', changes.phone || null);
    }
    if (changes.notes !== undefined && changes.notes !== row.notes) {
      set('notes', changes.notes);
    }
    const validFrom =
      changes.validFrom === undefined ? row.validFrom : toDate('validFrom', changes.validFrom);
    const validUntil =
      changes.validUntil === undefined ? row.validUntil : toDate('validUntil', changes.validUntil);
    checkWindow(validFrom, validUntil);
    if (!sameTime(validFrom, row.validFrom)) set('validFrom', validFrom);
    if (!sameTime(validUntil, row.validUntil)) set('validUntil', validUntil);
    if (changes.enabled !== undefined && changes.enabled !== Boolean(row.enabled)) {
      set('enabled', changes.enabled);
    }
    const previousPhoto = row.photoSha256;
    if (changes.photoSha256 !== undefined && changes.photoSha256 !== row.photoSha256) {
      set('photoSha256', changes.photoSha256);
    }

    if (changes.spaceIds !== undefined) {
      const next = await checkedSpaceIds(deps, row.organizationId, changes.spaceIds, t);
      if (next.join() !== spaceIds.join()) {
        await deps.models.PersonSpace.destroy({ where: { personId: row.id }, transaction: t });
        await deps.models.PersonSpace.bulkCreate(
          next.map((spaceId) => ({ personId: row.id, spaceId, nameKey: row.nameKey })),
          { transaction: t },
        );
        changed.push('spaceIds');
        spaceIds = next;
      }
    }

    if (changed.length === 0) return toPersonOut(row, spaceIds);
    if (changed.includes('name') && !changed.includes('spaceIds')) {
      // The access rows carry the name's key for the space listing's index (migration 0037).
      await deps.models.PersonSpace.update(
        { nameKey: row.nameKey },
        { where: { personId: row.id }, transaction: t },
      );
    }
    if (changed.some((f) => DEVICE_FIELDS.has(f))) row.version = row.version + 1;
    row.updatedAt = deps.clock.now();
    await saving(() => row.save({ transaction: t }));
    await deps.audit.record(
      {
        ...actor,
        organizationId: row.organizationId,
        action: 'person.update',
        target: { type: 'person', id: row.id },
        summary: `Updated a person: ${changed.join(', ')}`,
        message: { code: 'person_updated', params: { fields: changed.join(',') } },
      },
      t,
    );
    if (changed.includes('photoSha256')) releaseAfterCommit(deps, t, previousPhoto);
    return toPersonOut(row, spaceIds);
  });
}

/**
 * Erases a person: the row, their space access and (after commit) their photo file. The audit
 * log keeps that a deletion happened, never whose: no name, no ID number.
 */
export async function deletePerson(
  deps: Deps & Pick<AppContext, 'settings'>,
  organizationId: string | null,
  id: string,
  actor: Actor,
  transaction?: Transaction,
): Promise<void> {
  await inTransaction(deps, transaction, async (t) => {
    const row = await deps.models.Person.findOne({
      where: scoped(organizationId, id),
      transaction: t,
      lock: t.LOCK.UPDATE,
    });
    if (!row) throw httpErrors.notFound('Person not found.');
    await deps.models.PersonSpace.destroy({ where: { personId: row.id }, transaction: t });
    await row.destroy({ transaction: t });
    // The sync planner's sign that someone is gone (sync/planning/full-plan.ts).
    await deps.settings.set(SettingKey.peopleDeleted, randomUUID(), t);
    await deps.audit.record(
      {
        ...actor,
        organizationId: row.organizationId,
        action: 'person.delete',
        target: { type: 'person', id: row.id },
        summary: 'Deleted a person and their space access and photo',
        message: { code: 'person_deleted', params: {} },
      },
      t,
    );
    releaseAfterCommit(deps, t, row.photoSha256);
  });
}
