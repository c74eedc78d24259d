import { QueryTypes } from 'sequelize';
import type { AppContext } from '../../../platform/context.js';
import type { PersonRow } from '../../../platform/db/business-models.js';
import { fromSqlDate } from '../../../platform/db/sql-dates.js';
import type { PushPerson } from '../push.js';

/** One person, for a push without a run's shared reads (push.ts directReads). */
export function readPerson(deps: Pick<AppContext, 'sync'>, id: string): Promise<PersonRow | null> {
  return deps.sync.db.models.Person.findByPk(id);
}

/** What pushes send of these people, as plain rows: model instances cost more than the read. */
export async function readPeople(
  deps: Pick<AppContext, 'sync'>,
  ids: readonly string[],
): Promise<PushPerson[]> {
  const rows = await deps.sync.db.sequelize.query<Record<keyof PushPerson, unknown>>(
    `SELECT id, name, id_number AS idNumber, photo_sha256 AS photoSha256, version,
      valid_from AS validFrom, valid_until AS validUntil FROM people WHERE id IN (:ids)`,
    { replacements: { ids }, type: QueryTypes.SELECT },
  );
  return rows.map((r) => ({
    ...(r as PushPerson),
    id: String(r.id),
    version: Number(r.version),
    validFrom: fromSqlDate(r.validFrom),
    validUntil: fromSqlDate(r.validUntil),
  }));
}
