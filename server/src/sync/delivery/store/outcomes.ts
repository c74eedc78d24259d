import { QueryTypes, type InferAttributes, type Sequelize } from 'sequelize';
import type { AppContext } from '../../../platform/context.js';
import type { SyncTaskRow } from '../../../platform/db/business-models.js';
import { retryOnDeadlock } from '../../../platform/db/deadlock.js';
import { sqlDate } from '../../../platform/db/sql-dates.js';
import { SUCCESS_STATEMENT_MAX, SUCCESS_WRITE_TRIES } from '../../knobs.js';
import { publishSyncState } from '../../live.js';
import type { TaskRow } from '../../tasks/rows.js';
import type { Outcome } from '../push.js';

/**
 * The delivery wing's store of outcomes: the SQL that writes pushes' successes, with its
 * dialect branches (the success writer, success-writer.ts, decides when and how many), and the
 * writes of one task's outcome or release (failures.ts decides what it becomes: state,
 * backoff, error).
 */
export type Done = Extract<Outcome, { kind: 'done' }>;
export interface DoneItem {
  task: TaskRow;
  outcome: Done;
}

/**
 * recordOutcome's `done` case for many tasks (of any devices) in one statement: succeeded where
 * the task is still pending with the target pushed; due again at once (keeping what the
 * device now holds) where the planner changed the target while the push was in flight.
 */
export async function recordDone(
  deps: Pick<AppContext, 'sync' | 'clock' | 'live'>,
  items: readonly DoneItem[],
): Promise<Announce> {
  const told: (() => void)[] = [];
  for (let i = 0; i < items.length; i += SUCCESS_STATEMENT_MAX) {
    told.push(await recordChunk(deps, items.slice(i, i + SUCCESS_STATEMENT_MAX)));
  }
  return () => told.forEach((tell) => tell());
}

/**
 * Tells the live stream what was written. The caller calls it once the tasks are settled in
 * flight: a page refetching on the message must not still see them `running`.
 */
export type Announce = () => void;

async function recordChunk(
  deps: Pick<AppContext, 'sync' | 'clock' | 'live'>,
  items: readonly DoneItem[],
): Promise<Announce> {
  if (items.length === 0) return () => undefined;
  const sequelize = deps.sync.db.sequelize;
  // With its milliseconds (a bare Date loses them on MySQL).
  const now = sqlDate(sequelize, deps.clock.now());
  const ids = items.map((i) => i.task.id);
  const inIds = ids.map(() => '?').join(', ');
  const plain: DoneItem[] = [];
  const retargeted: DoneItem[] = [];
  for (const item of items) (isPlain(item) ? plain : retargeted).push(item);
  const written =
    (plain.length > 0 ? await writePlain(sequelize, plain, now) : 0) +
    (retargeted.length > 0 ? await writeRetargeted(sequelize, retargeted, now) : 0);
  let succeeded: Set<string> | undefined;
  let requeued = new Set<string>();
  if (written < items.length) {
    // Changed while in flight: keep what the device now holds, push the newer target.
    const rows = await sequelize.query<{ id: string; state: string }>(
      `SELECT id, state FROM sync_tasks WHERE id IN (${inIds})`,
      { type: QueryTypes.SELECT, replacements: ids },
    );
    succeeded = new Set(rows.filter((r) => r.state === 'succeeded').map((r) => r.id));
    requeued = new Set(rows.filter((r) => r.state === 'pending').map((r) => r.id));
    if (requeued.size > 0) {
      const back = [...requeued];
      // CASE id WHEN … THEN … END: one value per task in a single statement.
      const cases = (value: (item: DoneItem) => unknown, otherwise: string) => ({
        sql: `CASE id ${items.map(() => 'WHEN ? THEN ?').join(' ')} ELSE ${otherwise} END`,
        values: items.flatMap((item) => [item.task.id, value(item)]),
      });
      const result = [
        cases((i) => i.outcome.result?.version ?? null, 'NULL'),
        cases((i) => i.outcome.result?.photoSha256 ?? null, 'NULL'),
      ];
      // Due at once: after the device's read position, so its stream reads it again.
      await sequelize.query(
        `UPDATE sync_tasks SET updated_at = ?, next_attempt_at = ?,
          result_version = ${result[0]!.sql}, result_photo_sha256 = ${result[1]!.sql}
          WHERE id IN (${back.map(() => '?').join(', ')}) AND state = 'pending'`,
        {
          type: QueryTypes.UPDATE,
          replacements: [now, now, ...result[0]!.values, ...result[1]!.values, ...back],
        },
      );
    }
  }
  // The live stream hears what was written (nothing for a task failed or gone meanwhile).
  return () => {
    for (const { task } of items) {
      const state = requeued.has(task.id)
        ? 'pending'
        : !succeeded || succeeded.has(task.id)
          ? 'succeeded'
          : undefined;
      if (state) publishSyncState(deps, task, { state, attempts: task.attempts, errorCode: null });
    }
  };
}

/**
 * The device holds exactly the task's target: a delete, or a put of the version and photo
 * the task aims at (nearly every success; a person edited after the task was read was pushed
 * at their newer version, which is what the task then records: writeRetargeted). A device
 * with photo limits acknowledges its variant's hash, not the task's: writeRetargeted records it.
 */
function isPlain({ task, outcome }: DoneItem): boolean {
  const { pushed, result } = outcome;
  if (task.action === 'delete') return pushed === undefined && result === null;
  return (
    pushed !== undefined &&
    result !== null &&
    pushed.version === task.personVersion &&
    pushed.photoSha256 === task.photoSha256 &&
    result.version === pushed.version &&
    result.photoSha256 === pushed.photoSha256
  );
}

/** One success UPDATE (autocommit); a plan may deadlock with it on MySQL (deadlock.ts). */
const writeSuccesses = (sequelize: Sequelize, sql: string, replacements: unknown[]) =>
  retryOnDeadlock(
    () => sequelize.query(sql, { type: QueryTypes.UPDATE, replacements }),
    SUCCESS_WRITE_TRIES,
  ).then(([, written]) => Number(written));

/**
 * Plain successes: ids only, one clause per (action, version) — one or two in a backfill.
 * Each task is written only if still pending (the device's holder pushed it; device-leases.ts) and
 * still aimed at what was read. Seven values per task in a derived table (writeRetargeted)
 * cost MariaDB about a third more per task, and the service the values' text.
 */
async function writePlain(
  sequelize: Sequelize,
  items: readonly DoneItem[],
  now: string,
): Promise<number> {
  const groups = new Map<string, { action: string; version: number; ids: string[] }>();
  for (const { task } of items) {
    const key = `${task.action}:${task.personVersion}`;
    const group = groups.get(key) ?? { action: task.action, version: task.personVersion, ids: [] };
    group.ids.push(task.id);
    groups.set(key, group);
  }
  const clauses = [...groups.values()].map(
    (g) => `(id IN (${g.ids.map(() => '?').join(', ')}) AND action = ? AND person_version = ?)`,
  );
  return writeSuccesses(
    sequelize,
    `UPDATE sync_tasks SET state = 'succeeded', updated_at = ?, finished_at = ?,
      error_code = NULL, error_message = NULL, error_params = NULL,
      result_version = CASE action WHEN 'put' THEN person_version END,
      result_photo_sha256 = CASE action WHEN 'put' THEN photo_sha256 END
      WHERE state = 'pending' AND (${clauses.join(' OR ')})`,
    [now, now, ...[...groups.values()].flatMap((g) => [...g.ids, g.action, g.version])],
  );
}

/**
 * Successes pushed at another target than the task's own: the pushed version and photo, and
 * what the device acknowledged, per task, as a derived table joined on id (CASE id WHEN …
 * over a few hundred ids is evaluated row by row and cost SQLite about four times the whole
 * UPDATE).
 */
async function writeRetargeted(
  sequelize: Sequelize,
  items: readonly DoneItem[],
  now: string,
): Promise<number> {
  const values = items.flatMap((i) => [
    i.task.id,
    i.task.action,
    i.task.personVersion,
    i.outcome.result?.version ?? null,
    i.outcome.result?.photoSha256 ?? null,
    i.outcome.pushed?.version ?? i.task.personVersion,
    i.outcome.pushed ? i.outcome.pushed.photoSha256 : i.task.photoSha256,
  ]);
  const mysql = sequelize.getDialect() === 'mysql';
  // SQLite allows at most 500 terms in a UNION ALL, not in a VALUES list (its columns are
  // column1…column7, named here); MySQL's VALUES needs ROW() and MariaDB's does not.
  const derived = mysql
    ? `(SELECT ? AS id, ? AS act, ? AS pv, ? AS rv, ? AS rp, ? AS npv, ? AS np
      ${' UNION ALL SELECT ?, ?, ?, ?, ?, ?, ?'.repeat(items.length - 1)})`
    : `(SELECT column1 AS id, column2 AS act, column3 AS pv, column4 AS rv,
      column5 AS rp, column6 AS npv, column7 AS np
      FROM (VALUES ${items.map(() => '(?, ?, ?, ?, ?, ?, ?)').join(', ')}))`;
  const set = (t: string) => `${t}state = 'succeeded', ${t}updated_at = ?, ${t}finished_at = ?,
    ${t}error_code = NULL, ${t}error_message = NULL, ${t}error_params = NULL,
    ${t}result_version = v.rv,
    ${t}result_photo_sha256 = v.rp, ${t}photo_sha256 = v.np, ${t}person_version = v.npv`;
  // Still aimed at what was read, or already at what was pushed (a plan retargeted it to the
  // same newer version meanwhile): pushing that again would repeat it on the device.
  const unchanged = (t: string) => `${t}state = 'pending' AND ${t}action = v.act
    AND (${t}person_version = v.pv OR (${t}person_version = v.npv
      AND COALESCE(${t}photo_sha256, '') = COALESCE(v.np, '')))`;
  return mysql
    ? writeSuccesses(
        sequelize,
        `UPDATE sync_tasks t JOIN ${derived} v ON t.id = v.id SET ${set('t.')}
          WHERE ${unchanged('t.')}`,
        [...values, now, now],
      )
    : writeSuccesses(
        sequelize,
        `UPDATE sync_tasks SET ${set('')} FROM ${derived} AS v
          WHERE sync_tasks.id = v.id AND ${unchanged('sync_tasks.')}`,
        [now, now, ...values],
      );
}

/** A task's columns as one push's outcome sets them (failures.ts decides their values). */
export type OutcomeColumns = Partial<
  Pick<
    InferAttributes<SyncTaskRow>,
    | 'state'
    | 'attempts'
    | 'nextAttemptAt'
    | 'errorCode'
    | 'errorMessage'
    | 'errorParams'
    | 'finishedAt'
    | 'resultVersion'
    | 'resultPhotoSha256'
    | 'personVersion'
    | 'photoSha256'
  >
>;

/**
 * Writes one push's outcome, only while the task is still pending and aims at what was pushed
 * (its device's holder pushed it: device-leases.ts). Resolves with how many rows were written.
 */
export async function writeOutcomeIfUnchanged(
  deps: Pick<AppContext, 'sync'>,
  task: Pick<TaskRow, 'id' | 'action' | 'personVersion'>,
  now: Date,
  columns: OutcomeColumns,
): Promise<number> {
  const [written] = await deps.sync.db.models.SyncTask.update(
    { updatedAt: now, ...columns },
    {
      where: {
        id: task.id,
        state: 'pending',
        action: task.action,
        personVersion: task.personVersion,
      },
    },
  );
  return written;
}

/**
 * A task still pending is due again at `at`, with what the device acknowledged if `result`
 * says. Resolves with how many rows were written (none for a task settled meanwhile).
 */
export async function requeueTask(
  deps: Pick<AppContext, 'sync'>,
  task: Pick<TaskRow, 'id'>,
  now: Date,
  at: Date,
  result?: Pick<OutcomeColumns, 'resultVersion' | 'resultPhotoSha256'>,
): Promise<number> {
  const [back] = await deps.sync.db.models.SyncTask.update(
    { updatedAt: now, ...result, state: 'pending', nextAttemptAt: at },
    { where: { id: task.id, state: 'pending' } },
  );
  return back;
}

/** The tasks still pending are due again at `at`, no attempt counted. */
export async function postponeTasks(
  deps: Pick<AppContext, 'sync'>,
  tasks: readonly Pick<TaskRow, 'id'>[],
  now: Date,
  at: Date,
): Promise<void> {
  await deps.sync.db.models.SyncTask.update(
    { updatedAt: now, nextAttemptAt: at },
    { where: { id: tasks.map((t) => t.id), state: 'pending' } },
  );
}
