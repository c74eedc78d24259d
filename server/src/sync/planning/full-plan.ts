import type { AppContext } from '../../platform/context.js';
import type { DeviceRow } from '../../platform/db/business-models.js';
import { loadSpaceTree, type SpaceTree } from '../../spaces/tree.js';
import { applyDiffs, insertMissingTasks, type MissingTasks } from './write-tasks.js';
import type { Lane } from '../tasks/rows.js';
import { planPeople } from './people-plan.js';
import { deviceSpaces, diffSize, type DeviceDiff } from './diff.js';
import { peoplePart, type Fingerprint } from './fingerprint.js';
import {
  countDesired,
  diffDevice,
  fewTaskPeople,
  peopleUpdatedSince,
  planDevices,
} from './store/desired.js';

type Deps = Pick<AppContext, 'sync' | 'clock' | 'logger'>;

/**
 * diffDevice's full answer for a device with few tasks (registered, perhaps already given a
 * person created since): its tasks compared person by person, and everyone else it should
 * hold missing — the desired people counted once per organization and spaces for all such
 * devices of a plan, less those among its tasks' people. Each of diffDevice's three full
 * queries reads the device's whole desired set: a site's new devices, planned that way, held
 * the worker's connection for seconds each before the first of them had work.
 */
async function fewTasksDiff(
  deps: Deps,
  device: Pick<DeviceRow, 'id' | 'organizationId'>,
  spaces: readonly string[],
  now: Date,
  people: readonly string[],
  counts: Map<string, Promise<number>>,
): Promise<DeviceDiff> {
  const count = (personIds?: readonly string[]) =>
    countDesired(deps, device.organizationId, spaces, now, personIds);
  const key = JSON.stringify([device.organizationId, [...spaces].sort()]);
  let desired = counts.get(key);
  if (!desired) {
    desired = count();
    counts.set(key, desired);
  }
  if (people.length === 0)
    return { puts: [], deletes: [], missing: { count: await desired, spaces } };
  // A full plan moves no task between lanes.
  const known = await diffDevice(deps, device, spaces, now, people, false);
  const held = await count(people);
  return { ...known, missing: { count: Math.max(0, (await desired) - held), spaces } };
}

/**
 * Compares the desired state with sync_tasks for every device (of one organization, or all)
 * and queues what differs. Derived rather than signalled, so no other feature has to call in:
 * a person edit, new photo, access change, device move or (re)enable, disable, deletion, or a
 * validity boundary passing all show up as a difference on the next run.
 */
export async function planSync(
  deps: Deps,
  opts: {
    organizationId?: string;
    /** Only these devices (registered, moved or re-enabled: their new tasks go together). */
    deviceIds?: readonly string[];
    personIds?: readonly string[];
    /** Runs after each device's diff is written (the worker serves it, plans urgent work). */
    afterDevice?: () => Promise<void>;
    /** Tasks were written in this lane (the worker's devices read priority work at once). */
    onQueued?: (lane: Lane) => void;
  } = {},
): Promise<{ devices: number; queued: number }> {
  // A few people on every device: a handful of statements instead of a few per device.
  if (opts.personIds && !opts.organizationId && !opts.deviceIds) {
    return planPeople(deps, opts.personIds);
  }
  const now = deps.clock.now();
  const devices = await planDevices(deps, opts);
  const trees = new Map<string, SpaceTree>();
  const counts = new Map<string, Promise<number>>();
  let queued = 0;
  const missing: MissingTasks[] = [];
  for (const device of devices) {
    let tree = trees.get(device.organizationId);
    if (!tree) {
      tree = await loadSpaceTree(deps.sync.db, device.organizationId);
      trees.set(device.organizationId, tree);
    }
    const spaces = deviceSpaces(device, tree);
    const few = opts.personIds === undefined ? await fewTaskPeople(deps, device.id) : undefined;
    const diff = few
      ? await fewTasksDiff(deps, device, spaces, now, few, counts)
      : await diffDevice(deps, device, spaces, now, opts.personIds);
    if (diffSize(diff) > 0) {
      const [lane] = await applyDiffs(deps, [{ device, diff }], now, false);
      queued += diffSize(diff);
      if (diff.puts.length + diff.deletes.length > 0) opts.onQueued?.(lane!);
      deps.logger.debug({ device: device.id, queued: diffSize(diff), lane }, 'sync planned');
      if (diff.missing && diff.missing.count > 0) {
        missing.push({
          device,
          spaces: diff.missing.spaces,
          lane: lane!,
          count: diff.missing.count,
        });
      }
    }
    await opts.afterDevice?.();
  }
  // New tasks range by range across all devices, not device after device: every device gets
  // work at once and they finish together (a device's pushes are limited per device, so the
  // last device planned would otherwise push alone at the end).
  await insertMissingTasks(deps, missing, now, opts.afterDevice);
  for (const lane of new Set(missing.map((m) => m.lane))) opts.onQueued?.(lane);
  return { devices: devices.length, queued };
}

/** What changed between two fingerprints, to be planned on its own instead of everything. */
export interface Changes {
  /** People created or edited (planned on every device). */
  people: string[];
  /** Devices registered, moved, enabled or disabled (planned for everyone). */
  devices: string[];
}

/**
 * What to plan when the fingerprint went from `before` (read by the plan that started at
 * `since`) to `after`: the people updated since then and the devices whose placement
 * changed. Undefined when a delta cannot be trusted — the spaces changed, someone was deleted
 * (the deletion mark in runtime settings changed), or the number inside their validity window
 * moved otherwise than by the people added (a boundary passed for someone not edited) — and
 * then the caller plans everything. A device removed needs nothing: its tasks went with it.
 */
export async function changesSince(
  deps: Deps,
  before: string,
  after: string,
  since: Date,
): Promise<Changes | undefined> {
  const a = JSON.parse(before) as Fingerprint;
  const b = JSON.parse(after) as Fingerprint;
  if (a.spaces !== b.spaces || a.deleted !== b.deleted) return undefined;
  const devices = Object.keys(b.devices).filter((id) => a.devices[id] !== b.devices[id]);
  if (peoplePart(a) === peoplePart(b)) return { people: [], devices };
  const added = Number(b.people) - Number(a.people);
  if (added < 0 || Number(b.valid) - Number(a.valid) !== added) return undefined;
  // No one was deleted (deletePerson changes `deleted`), so everyone added or edited since is
  // among the people updated since. Counting the ones created since against `added` instead
  // mistook a person created just before the last plan, and committed just after its read,
  // for a deletion: with the worker planning at each change, a full plan every few seconds.
  const people = await peopleUpdatedSince(deps, since);
  return people && { people, devices };
}
