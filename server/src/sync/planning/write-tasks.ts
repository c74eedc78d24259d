import type { AppContext } from '../../platform/context.js';
import type { DeviceRow } from '../../platform/db/business-models.js';
import { diffSize, type DeviceDiff } from './diff.js';
import { BULK_THRESHOLD, INSERT_CHUNK } from '../knobs.js';
import {
  deleteTasks,
  insertMissing,
  insertTasks,
  retargetTasks,
  type IdRange,
  type MissingGroup,
} from './store/tasks.js';
import type { Lane } from '../tasks/rows.js';

type Deps = Pick<AppContext, 'sync' | 'clock' | 'logger'>;

/**
 * Writes several devices' diffs as coalesced tasks (one row per person and device) in as few
 * statements as the targets allow: new tasks of every device in one multi-row INSERT per
 * chunk, existing tasks with the same new target and lane in one UPDATE. Each device's lane
 * is its own (bulk when its diff is large). Resolves with the lanes, in order.
 */
export async function applyDiffs(
  deps: Deps,
  entries: readonly { device: Pick<DeviceRow, 'id' | 'organizationId'>; diff: DeviceDiff }[],
  now: Date,
  /** False: the caller inserts the missing tasks itself (planSync, range by range). */
  withMissing = true,
): Promise<Lane[]> {
  const lanes = entries.map(({ diff }): Lane =>
    diffSize(diff) > BULK_THRESHOLD ? 'bulk' : 'priority',
  );
  const fresh = entries.flatMap(({ device, diff }, i) =>
    diff.puts.filter((p) => p.taskId === null).map((p) => ({ device, lane: lanes[i]!, p })),
  );
  if (withMissing) {
    const missing = entries.flatMap(({ device, diff }, i) =>
      diff.missing && diff.missing.count > 0
        ? [{ device, spaces: diff.missing.spaces, lane: lanes[i]!, count: diff.missing.count }]
        : [],
    );
    await insertMissingTasks(deps, missing, now);
  }
  // One multi-row statement per chunk: a new device of 100,000 people is 100,000 rows.
  await insertTasks(deps, fresh, now);
  // Existing tasks with the same new target (and lane) are updated together.
  const targets = new Map<
    string,
    { lane: Lane; version: number; photoSha256: string | null; ids: string[] }
  >();
  const deletes = new Map<string, { lane: Lane; version: number; ids: string[] }>();
  entries.forEach(({ diff }, i) => {
    const lane = lanes[i]!;
    for (const p of diff.puts) {
      if (p.taskId === null) continue;
      const key = `${lane}:${p.version}:${p.photoSha256 ?? ''}`;
      const group = targets.get(key) ?? {
        lane,
        version: p.version,
        photoSha256: p.photoSha256,
        ids: [],
      };
      group.ids.push(p.taskId);
      targets.set(key, group);
    }
    for (const d of diff.deletes) {
      const key = `${lane}:${d.version}`;
      const group = deletes.get(key) ?? { lane, version: d.version, ids: [] };
      group.ids.push(d.taskId);
      deletes.set(key, group);
    }
  });
  for (const target of targets.values()) await retargetTasks(deps, target, now);
  for (const group of deletes.values()) await deleteTasks(deps, group, now);
  return lanes;
}

/**
 * Splits the id space into ranges of about INSERT_CHUNK people each (by the ids' first hex
 * characters: ids are random UUIDs). The ranges cover every string, whatever an id looks like.
 */
export function idRanges(count: number): IdRange[] {
  if (count <= INSERT_CHUNK) return [{ lo: null, hi: null }];
  const hex = '0123456789abcdef';
  const prefixes =
    count <= 16 * INSERT_CHUNK
      ? [...hex]
      : [...hex].flatMap((a) => [...hex].map((b) => `${a}${b}`));
  return prefixes.map((lo, i) => ({
    lo: i === 0 ? null : lo,
    hi: i === prefixes.length - 1 ? null : prefixes[i + 1]!,
  }));
}

/** A device's people of `spaces` without a task there yet: `count` new tasks in `lane`. */
export interface MissingTasks {
  device: Pick<DeviceRow, 'id' | 'organizationId'>;
  spaces: readonly string[];
  lane: Lane;
  count: number;
}

/**
 * Writes the missing tasks of several devices range by range of person ids, the devices of
 * the same spaces together in one statement per range (insertMissing); `afterRange` runs
 * between ranges (the worker serves its devices meanwhile).
 */
export async function insertMissingTasks(
  deps: Deps,
  missing: readonly MissingTasks[],
  now: Date,
  afterRange?: () => Promise<void>,
): Promise<void> {
  if (missing.length === 0) return;
  const groups = missingGroups(missing);
  for (const range of idRanges(Math.max(...missing.map((m) => m.count)))) {
    for (const group of groups) await insertMissing(deps, group, range, now);
    await afterRange?.();
  }
}

/**
 * Groups devices that hold the same people (one organization, the same spaces) and get the
 * same lane, so their new tasks are written by one statement per range (insertMissing).
 */
export function missingGroups(
  entries: readonly Pick<MissingTasks, 'device' | 'spaces' | 'lane'>[],
): MissingGroup[] {
  const groups = new Map<string, MissingGroup>();
  for (const { device, spaces, lane } of entries) {
    const key = JSON.stringify([device.organizationId, lane, [...spaces].sort()]);
    const group = groups.get(key) ?? {
      organizationId: device.organizationId,
      deviceIds: [],
      spaces,
      lane,
    };
    group.deviceIds.push(device.id);
    groups.set(key, group);
  }
  return [...groups.values()];
}
