import type { AppContext } from '../../platform/context.js';
import { fromSqlDate } from '../../platform/db/sql-dates.js';
import { loadSpaceTree, type SpaceTree } from '../../spaces/tree.js';
import { applyDiffs } from './write-tasks.js';
import { deviceSpaces, diffSize, type DeviceDiff } from './diff.js';
import { planDevices, readPeopleFacts } from './store/desired.js';

type Deps = Pick<AppContext, 'sync' | 'clock' | 'logger'>;

interface PersonFacts {
  organizationId: string;
  version: number;
  photoSha256: string | null;
  enabled: boolean;
  validFrom: Date | null;
  validUntil: Date | null;
  spaces: Set<string>;
}

interface TaskFacts {
  id: string;
  personId: string;
  deviceId: string;
  action: string;
  personVersion: number;
  photoSha256: string | null;
  state: string;
  lane: string;
}

/**
 * The plan for a few people (edited, created or deleted since the last plan) on every device,
 * decided in memory from three reads — the people, their access, their tasks — and written by
 * one applyDiffs. The same rules as diffDevice's SQL: a person belongs on a device when
 * enabled, inside the validity window, of the device's organization, with access to the
 * device's space or an ancestor; a pending bulk task of a changed person moves to the priority
 * lane. Planning per device took a few statements per device for one person, and each waited
 * behind a backfill's reads.
 */
export async function planPeople(
  deps: Deps,
  personIds: readonly string[],
): Promise<{ devices: number; queued: number }> {
  const now = deps.clock.now();
  const devices = await planDevices(deps);
  if (personIds.length === 0) return { devices: devices.length, queued: 0 };
  const { people, access, tasks } = await readPeopleFacts(deps, personIds);
  const facts = new Map<string, PersonFacts>();
  for (const p of people) {
    facts.set(String(p.id), {
      organizationId: String(p.organization_id),
      version: Number(p.version),
      photoSha256: (p.photo_sha256 as string | null) ?? null,
      enabled: Number(p.enabled) === 1 || p.enabled === true,
      validFrom: fromSqlDate(p.valid_from),
      validUntil: fromSqlDate(p.valid_until),
      spaces: new Set(),
    });
  }
  for (const a of access) facts.get(a.person_id)?.spaces.add(a.space_id);
  const taskOf = new Map<string, TaskFacts>();
  for (const t of tasks) {
    const task: TaskFacts = {
      id: String(t.id),
      personId: String(t.person_id),
      deviceId: String(t.device_id),
      action: String(t.action),
      personVersion: Number(t.person_version),
      photoSha256: (t.photo_sha256 as string | null) ?? null,
      state: String(t.state),
      lane: String(t.lane),
    };
    taskOf.set(`${task.personId} ${task.deviceId}`, task);
  }
  const trees = new Map<string, SpaceTree>();
  const entries: { device: (typeof devices)[number]; diff: DeviceDiff }[] = [];
  for (const device of devices) {
    let tree = trees.get(device.organizationId);
    if (!tree) {
      tree = await loadSpaceTree(deps.sync.db, device.organizationId);
      trees.set(device.organizationId, tree);
    }
    const spaces = deviceSpaces(device, tree);
    const diff: DeviceDiff = { puts: [], deletes: [] };
    for (const id of personIds) {
      const person = facts.get(id);
      const task = taskOf.get(`${id} ${device.id}`);
      const belongs =
        person !== undefined &&
        person.enabled &&
        person.organizationId === device.organizationId &&
        (person.validFrom === null || person.validFrom <= now) &&
        (person.validUntil === null || person.validUntil > now) &&
        spaces.some((s) => person.spaces.has(s));
      if (belongs) {
        const stale =
          !task ||
          task.action !== 'put' ||
          task.personVersion !== person.version ||
          (task.photoSha256 ?? '') !== (person.photoSha256 ?? '') ||
          (task.state === 'pending' && task.lane === 'bulk');
        if (stale) {
          diff.puts.push({
            personId: id,
            version: person.version,
            photoSha256: person.photoSha256,
            taskId: task?.id ?? null,
          });
        }
      } else if (task?.action === 'put') {
        diff.deletes.push({ taskId: task.id, version: task.personVersion });
      }
    }
    if (diffSize(diff) > 0) entries.push({ device, diff });
  }
  await applyDiffs(deps, entries, now);
  const queued = entries.reduce((n, e) => n + diffSize(e.diff), 0);
  deps.logger.debug({ people: personIds.length, queued }, 'sync planned people');
  return { devices: devices.length, queued };
}
