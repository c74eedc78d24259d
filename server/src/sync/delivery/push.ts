import { WarningCode, type ServiceWarning } from '@svc/shared';
import { BodyCache } from './bodies.js';
import type { AppContext } from '../../platform/context.js';
import type { DeviceRow, PersonRow } from '../../platform/db/business-models.js';
import { profileOf, type PhotoProfile } from '../../photos/variants/profile.js';
import type { TaskRow } from '../tasks/rows.js';
import { readPerson } from './store/people.js';
import { DeviceCallError, type DeviceClient, type DeviceTarget } from '../../devices/service.js';

type Deps = Pick<AppContext, 'sync' | 'photoVariants'>;

/** What became of one push, before it is written to the task. */
export type Outcome =
  /** The device holds what was sent (put) or no longer holds the person (delete). */
  | { kind: 'done'; result: { version: number; photoSha256: string } | null; pushed?: Pushed }
  /**
   * Worth trying again later; costs an attempt. `local`: this process's setup caused it (a file
   * another process sharing the database may have): never given up, and `local.warning` (one
   * text for all the tasks it stops) goes to the heartbeat's warnings and the log.
   */
  | {
      kind: 'retry';
      code: string;
      message: string;
      params?: FailureParams;
      local?: { warning: ServiceWarning };
    }
  /**
   * Final until something changes; `burn` says whether it counts as an attempt (a person
   * without a photo did not try the device at all).
   */
  | { kind: 'fail'; code: string; message: string; params?: FailureParams; burn: boolean }
  /** Not this task's business yet (the person vanished): the planner will turn it into a delete. */
  | { kind: 'release' };

/**
 * A failure's values for the site to word it in the reader's language (issue 34): `detail`
 * names the sentence (`sync.detail.<detail>`), the rest fill it; the English `message` stays
 * for logs and API users.
 */
export type FailureParams = Record<string, string | number>;

export interface Pushed {
  version: number;
  photoSha256: string;
}

/** One device during one worker run: its address, and its fill level for the capacity check. */
export interface DeviceRun {
  device: DeviceRow;
  target: DeviceTarget;
  /** People the device holds by the tasks' acknowledged results (plus pushes in flight). */
  held: number;
  /** Shared reads of a worker run (run-reads.ts); without it each push reads for itself. */
  reads?: PushReads;
}

/** What a push sends of a person. */
export type PushPerson = Pick<
  PersonRow,
  'id' | 'name' | 'idNumber' | 'photoSha256' | 'version' | 'validFrom' | 'validUntil'
>;

/** What a push reads besides the task: the person, and the photo the device's profile gets. */
export interface PushReads {
  person(id: string): Promise<PushPerson | null>;
  /**
   * The photo as sent to a device of this profile (photos/variants/): base64 and the hash the
   * device will acknowledge, or why it cannot take it; undefined when the stored file is missing.
   */
  photo(sha256: string, profile: PhotoProfile): Promise<SentPhoto | undefined>;
}

export type SentPhoto = { sha256: string; base64: string } | { problem: string };

export function directReads(deps: Deps): PushReads {
  return {
    person: (id) => readPerson(deps, id),
    photo: async (sha256, profile) => {
      const photo = await deps.photoVariants.photoFor(sha256, profile);
      if (!photo || 'problem' in photo) return photo;
      return { sha256: photo.sha256, base64: photo.data.toString('base64') };
    },
  };
}

const bodies = new BodyCache<PushPerson>();
/** Bodies with a variant photo, per person, version and variant (the person object is shared by profiles). */
const variantBodies = new BodyCache<string>();

export async function pushTask(
  deps: Deps,
  client: DeviceClient,
  run: DeviceRun,
  task: TaskRow,
): Promise<Outcome> {
  const { device, target } = run;
  const reads = run.reads ?? directReads(deps);
  try {
    if (task.action === 'delete') {
      await client.deletePerson(target, task.personId);
      if (task.resultVersion !== null) run.held = Math.max(0, run.held - 1);
      return { kind: 'done', result: null };
    }
    const person = await reads.person(task.personId);
    if (!person) return { kind: 'release' };
    if (!person.photoSha256) {
      return {
        kind: 'fail',
        code: 'no_photo',
        message: `${person.name} has no photo yet; the device needs one. The task runs again when a photo is added.`,
        params: { detail: 'no_photo', name: person.name },
        burn: false,
      };
    }
    const photo = await reads.photo(person.photoSha256, profileOf(device));
    if (!photo) {
      // Perhaps only here: a replica that does not share the files (docs/operations.md).
      return {
        kind: 'retry',
        code: 'photo_missing',
        message: `The stored photo of ${person.name} (${person.photoSha256.slice(0, 12)}…) is missing from this server process's DATA_DIR: share DATA_DIR between the server processes, or upload the photo again.`,
        params: {
          detail: 'photo_missing',
          name: person.name,
          photo: person.photoSha256.slice(0, 12),
        },
        local: {
          warning: {
            code: WarningCode.photosMissingHere,
            params: {},
            message: `stored photos are missing from this server process's DATA_DIR: their tasks are retried; share DATA_DIR between the server processes`,
          },
        },
      };
    }
    if ('problem' in photo) {
      // Told when the photo was provided (the upload answer, the person page); it runs again
      // when the photo or the device's limits change.
      return {
        kind: 'fail',
        code: 'photo_unfit',
        message: photo.problem,
        params: { detail: 'photo_unfit', sn: device.sn },
        burn: false,
      };
    }
    const newSlot = task.resultVersion === null;
    if (newSlot && device.capacity !== null && run.held >= device.capacity) {
      return {
        kind: 'fail',
        code: 'capacity',
        message: `Device ${device.sn} is full: it holds ${run.held} people, its declared capacity is ${device.capacity}. Raise the capacity, move the device or remove access.`,
        params: { detail: 'capacity', sn: device.sn, held: run.held, capacity: device.capacity },
        burn: false,
      };
    }
    // The same body object for every device of a profile while it is kept (bodies.ts), so the
    // client serializes it once (a backfill sends each person to every device).
    const source = person.photoSha256;
    const make = () => ({
      id: person.id,
      name: person.name,
      idNumber: person.idNumber,
      photo: photo.base64,
      photoSha256: photo.sha256,
      version: person.version,
      ...(person.validFrom && { validFrom: person.validFrom.toISOString() }),
      ...(person.validUntil && { validUntil: person.validUntil.toISOString() }),
    });
    const body =
      photo.sha256 === source
        ? bodies.get(person, make)
        : variantBodies.get(`${person.id}:${person.version}:${photo.sha256}`, make);
    if (newSlot) run.held++;
    let answer;
    try {
      answer = await client.putPerson(target, body);
    } catch (err) {
      if (newSlot) run.held--;
      throw err;
    }
    if (answer.version !== body.version || answer.photoSha256 !== body.photoSha256) {
      return {
        kind: 'retry',
        code: 'device_mismatch',
        message: `Device ${device.sn} acknowledged version ${answer.version} with photo ${answer.photoSha256.slice(0, 12)}… instead of version ${body.version} with photo ${body.photoSha256.slice(0, 12)}…`,
        params: {
          detail: 'device_mismatch',
          sn: device.sn,
          heldVersion: answer.version,
          heldPhoto: answer.photoSha256.slice(0, 12),
          version: body.version,
          photo: body.photoSha256.slice(0, 12),
        },
      };
    }
    return {
      kind: 'done',
      result: { version: answer.version, photoSha256: answer.photoSha256 },
      // The task aims at the stored photo; the device acknowledged its variant (result).
      pushed: { version: body.version, photoSha256: source },
    };
  } catch (err) {
    if (!(err instanceof DeviceCallError)) throw err;
    return callFailure(err, device);
  }
}

function callFailure(err: DeviceCallError, device: DeviceRow): Outcome {
  if (err.status === 507) {
    return {
      kind: 'fail',
      code: 'capacity',
      message: `Device ${device.sn} is full (it answered HTTP 507). Raise its capacity or remove access.`,
      params: { detail: 'device_full', sn: device.sn },
      burn: true,
    };
  }
  const code = `device_${err.failure}`;
  const params = { ...err.detail.params, detail: err.detail.code };
  return err.retryable
    ? { kind: 'retry', code, message: err.message, params }
    : { kind: 'fail', code, message: err.message, params, burn: true };
}
