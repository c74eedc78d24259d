import { QueryTypes } from 'sequelize';
import type { AppContext } from '../context.js';
import type { FileRow, PersonRow, SyncTaskRow } from '../db/business-models.js';
import type { DeviceClient } from '../devices/service.js';
import { publishSyncState } from './live.js';
import { directReads, pushTask, type DeviceRun, type Outcome, type PushReads } from './push.js';
import { recordOutcome } from './record.js';

type Deps = Pick<AppContext, 'models' | 'photos' | 'db' | 'clock' | 'logger'>;
type Done = Extract<Outcome, { kind: 'done' }>;

/** Photos kept per run (base64 characters); a run that reads more starts over. */
const PHOTO_CACHE_CHARS = 64 * 1024 * 1024;

/**
 * Reads shared by one worker run. Photos and file rows are content-addressed, so a hash names
 * the same bytes for the whole run; people are fetched once per claimed batch instead of once
 * per push (a backfill pushes the same few hundred thousand people to every device).
 */
export class RunReads {
  private readonly photos = new Map<string, Promise<string | undefined>>();
  private readonly files = new Map<string, Promise<FileRow | null>>();
  private photoChars = 0;
  private readonly direct: PushReads;

  constructor(private readonly deps: Deps) {
    this.direct = directReads(deps);
  }

  async forBatch(tasks: readonly SyncTaskRow[]): Promise<PushReads> {
    const ids = tasks.filter((t) => t.action === 'put').map((t) => t.personId);
    const people = new Map<string, PersonRow>();
    if (ids.length > 0) {
      for (const p of await this.deps.models.Person.findAll({ where: { id: ids } })) {
        people.set(p.id, p);
      }
    }
    return {
      person: async (id) => people.get(id) ?? (await this.direct.person(id)),
      file: (sha256) => this.cached(this.files, sha256, () => this.direct.file(sha256)),
      photoBase64: (sha256) =>
        this.cached(this.photos, sha256, async () => {
          const photo = await this.direct.photoBase64(sha256);
          this.photoChars += photo?.length ?? 0;
          if (this.photoChars > PHOTO_CACHE_CHARS) {
            this.photos.clear();
            this.photoChars = photo?.length ?? 0;
          }
          return photo;
        }),
    };
  }

  private cached<T>(map: Map<string, Promise<T>>, key: string, load: () => Promise<T>): Promise<T> {
    let value = map.get(key);
    if (!value) {
      value = load();
      map.set(key, value);
      // A failed read is not remembered: the next push tries again.
      value.catch(() => map.delete(key));
    }
    return value;
  }
}

/** New priority work for a device whose batch is in flight: claimed and pushed first. */
export interface Urgent {
  /** True once after the planner queued something; the caller then claims. */
  due(): boolean;
  claim(): Promise<SyncTaskRow[]>;
}

/**
 * Pushes one claimed batch of a device, `perDevice` at a time, and records the outcomes:
 * successes together in one statement (they are nearly all of a backfill), anything else one
 * by one through recordOutcome. When `urgent` says the planner queued new work meanwhile, it
 * is claimed and pushed before the rest of the batch. Resolves with the number pushed.
 */
export async function pushBatch(
  deps: Deps,
  client: DeviceClient,
  run: DeviceRun,
  claimed: readonly SyncTaskRow[],
  perDevice: number,
  reads: RunReads,
  urgent?: Urgent,
): Promise<number> {
  const tasks = [...claimed];
  const people = await reads.forBatch(tasks);
  run.reads = people;
  const done: { task: SyncTaskRow; outcome: Done }[] = [];
  let pushed = 0;
  // Urgent work is recorded at once, not with the batch: someone is waiting for it.
  const urgentIds = new Set<string>();
  const lane = async () => {
    for (;;) {
      if (urgent?.due()) {
        const more = await urgent.claim();
        if (more.length > 0) {
          // Their people are not in this batch's read: look them up one by one.
          const extra = await reads.forBatch(more);
          const both: PushReads = {
            ...people,
            person: async (id) => (await extra.person(id)) ?? people.person(id),
          };
          run.reads = both;
          for (const task of more) urgentIds.add(task.id);
          tasks.unshift(...more);
        }
      }
      const task = tasks.shift();
      if (!task) break;
      pushed++;
      let outcome: Outcome;
      try {
        outcome = await pushTask(deps, client, run, task);
      } catch (err) {
        deps.logger.error({ err, task: task.id }, 'sync push failed unexpectedly');
        outcome = {
          kind: 'retry',
          code: 'internal',
          message: 'An internal error stopped the push; see the service log.',
        };
      }
      if (outcome.kind === 'done' && urgentIds.has(task.id))
        await recordDone(deps, [{ task, outcome }]);
      else if (outcome.kind === 'done') done.push({ task, outcome });
      else await recordOutcome(deps, task, outcome);
    }
  };
  await Promise.all(Array.from({ length: Math.min(perDevice, tasks.length) }, lane));
  await recordDone(deps, done);
  return pushed;
}

/**
 * recordOutcome's `done` case for many tasks of one claim in two statements: succeeded where
 * the claim still owns the task and its target is unchanged; back to pending (keeping what the
 * device now holds) where the planner changed the target while the push was in flight.
 */
export async function recordDone(
  deps: Pick<AppContext, 'db' | 'clock'>,
  items: readonly { task: SyncTaskRow; outcome: Done }[],
): Promise<void> {
  const byClaim = new Map<string, { task: SyncTaskRow; outcome: Done }[]>();
  for (const item of items) {
    const claim = item.task.claimedBy ?? '';
    byClaim.set(claim, [...(byClaim.get(claim) ?? []), item]);
  }
  for (const [claimant, group] of byClaim) {
    for (let i = 0; i < group.length; i += 200) {
      await recordClaimDone(deps, claimant, group.slice(i, i + 200));
    }
  }
}

async function recordClaimDone(
  deps: Pick<AppContext, 'db' | 'clock'>,
  claimant: string,
  items: readonly { task: SyncTaskRow; outcome: Done }[],
): Promise<void> {
  const sequelize = deps.db.sequelize;
  const now = deps.clock.now();
  const ids = items.map((i) => i.task.id);
  // CASE id WHEN … THEN … END: one value per task in a single statement.
  const cases = (value: (item: (typeof items)[number]) => unknown, otherwise: string) => ({
    sql: `CASE id ${items.map(() => 'WHEN ? THEN ?').join(' ')} ELSE ${otherwise} END`,
    values: items.flatMap((item) => [item.task.id, value(item)]),
  });
  const result = [
    cases((i) => i.outcome.result?.version ?? null, 'NULL'),
    cases((i) => i.outcome.result?.photoSha256 ?? null, 'NULL'),
  ];
  const pushedVersion = cases(
    (i) => i.outcome.pushed?.version ?? i.task.personVersion,
    'person_version',
  );
  const pushedPhoto = cases(
    (i) => (i.outcome.pushed ? i.outcome.pushed.photoSha256 : i.task.photoSha256),
    'photo_sha256',
  );
  const action = cases((i) => i.task.action, 'NULL');
  const version = cases((i) => i.task.personVersion, 'NULL');
  const inIds = ids.map(() => '?').join(', ');
  const [, written] = await sequelize.query(
    `UPDATE sync_tasks SET state = 'succeeded', claimed_by = NULL, claimed_until = NULL,
      updated_at = ?, finished_at = ?, error_code = NULL, error_message = NULL,
      result_version = ${result[0]!.sql}, result_photo_sha256 = ${result[1]!.sql},
      photo_sha256 = ${pushedPhoto.sql}, person_version = ${pushedVersion.sql}
      WHERE id IN (${inIds}) AND claimed_by = ? AND state = 'running'
        AND action = ${action.sql} AND person_version = ${version.sql}`,
    {
      type: QueryTypes.UPDATE,
      replacements: [
        now,
        now,
        ...result[0]!.values,
        ...result[1]!.values,
        ...pushedPhoto.values,
        ...pushedVersion.values,
        ...ids,
        claimant,
        ...action.values,
        ...version.values,
      ],
    },
  );
  let succeeded: Set<string> | undefined;
  let requeued = new Set<string>();
  if (Number(written) < items.length) {
    // Changed while in flight: keep what the device now holds, push the newer target.
    const rows = await sequelize.query<{ id: string; state: string; claimed_by: string | null }>(
      `SELECT id, state, claimed_by FROM sync_tasks WHERE id IN (${inIds})`,
      { type: QueryTypes.SELECT, replacements: ids },
    );
    succeeded = new Set(rows.filter((r) => r.state === 'succeeded').map((r) => r.id));
    requeued = new Set(
      rows.filter((r) => r.state === 'running' && r.claimed_by === claimant).map((r) => r.id),
    );
    if (requeued.size > 0) {
      await sequelize.query(
        `UPDATE sync_tasks SET state = 'pending', claimed_by = NULL, claimed_until = NULL,
          updated_at = ?, next_attempt_at = ?,
          result_version = ${result[0]!.sql}, result_photo_sha256 = ${result[1]!.sql}
          WHERE id IN (${inIds}) AND claimed_by = ? AND state = 'running'`,
        {
          type: QueryTypes.UPDATE,
          replacements: [now, now, ...result[0]!.values, ...result[1]!.values, ...ids, claimant],
        },
      );
    }
  }
  // The live stream hears what was written (nothing for a task another claim owns now).
  for (const { task } of items) {
    const state = requeued.has(task.id)
      ? 'pending'
      : !succeeded || succeeded.has(task.id)
        ? 'succeeded'
        : undefined;
    if (state) publishSyncState(deps, task, { state, attempts: task.attempts, errorCode: null });
  }
}
