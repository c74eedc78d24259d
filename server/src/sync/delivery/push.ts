import { BodyCache } from './bodies.js';
import type { AppContext } from '../../context.js';
import type { DeviceRow, FileRow, PersonRow } from '../../db/business-models.js';
import type { TaskRow } from './due-tasks.js';
import { DeviceCallError, type DeviceClient, type DeviceTarget } from '../../devices/service.js';

type Deps = Pick<AppContext, 'sync' | 'photos'>;

/** What became of one push, before it is written to the task. */
export type Outcome =
  /** The device holds what was sent (put) or no longer holds the person (delete). */
  | { kind: 'done'; result: { version: number; photoSha256: string } | null; pushed?: Pushed }
  /**
   * Worth trying again later; costs an attempt. `local`: this process's setup caused it (a file
   * another process sharing the database may have): never given up, and `local.warning` (one
   * text for all the tasks it stops) goes to the heartbeat's warnings and the log.
   */
  | { kind: 'retry'; code: string; message: string; local?: { warning: string } }
  /**
   * Final until something changes; `burn` says whether it counts as an attempt (a person
   * without a photo did not try the device at all).
   */
  | { kind: 'fail'; code: string; message: string; burn: boolean }
  /** Not this task's business yet (the person vanished): the planner will turn it into a delete. */
  | { kind: 'release' };

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
  /** Shared reads of a worker run (batch.ts); without it each push reads for itself. */
  reads?: PushReads;
}

/** What a push sends of a person. */
export type PushPerson = Pick<
  PersonRow,
  'id' | 'name' | 'idNumber' | 'photoSha256' | 'version' | 'validFrom' | 'validUntil'
>;

/** What a push reads besides the task: the person, the photo's file row and its bytes. */
export interface PushReads {
  person(id: string): Promise<PushPerson | null>;
  file(sha256: string): Promise<FileRow | null>;
  /** The stored photo as base64, undefined when the file is missing. */
  photoBase64(sha256: string): Promise<string | undefined>;
}

export function directReads(deps: Deps): PushReads {
  return {
    person: (id) => deps.sync.db.models.Person.findByPk(id),
    file: (sha256) => deps.sync.db.models.File.findByPk(sha256),
    photoBase64: async (sha256) => (await deps.photos.read(sha256))?.toString('base64'),
  };
}

const bodies = new BodyCache<PushPerson>();

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
        burn: false,
      };
    }
    const limits = await checkPhotoLimits(reads, device, person.photoSha256);
    if (limits) return limits;
    const photo = await reads.photoBase64(person.photoSha256);
    if (!photo) {
      // Perhaps only here: a replica that does not share the files (docs/operations.md).
      return {
        kind: 'retry',
        code: 'photo_missing',
        message: `The stored photo of ${person.name} (${person.photoSha256.slice(0, 12)}…) is missing from this server process's DATA_DIR: share DATA_DIR between the server processes, or upload the photo again.`,
        local: {
          warning: `stored photos are missing from this server process's DATA_DIR: their tasks are retried; share DATA_DIR between the server processes`,
        },
      };
    }
    const newSlot = task.resultVersion === null;
    if (newSlot && device.capacity !== null && run.held >= device.capacity) {
      return {
        kind: 'fail',
        code: 'capacity',
        message: `Device ${device.sn} is full: it holds ${run.held} people, its declared capacity is ${device.capacity}. Raise the capacity, move the device or remove access.`,
        burn: false,
      };
    }
    // The same body object for every device while it is kept (bodies.ts), so the client
    // serializes it once (a backfill sends each person to every device).
    const photoSha256 = person.photoSha256;
    const body = bodies.get(person, () => ({
      id: person.id,
      name: person.name,
      idNumber: person.idNumber,
      photo,
      photoSha256,
      version: person.version,
      ...(person.validFrom && { validFrom: person.validFrom.toISOString() }),
      ...(person.validUntil && { validUntil: person.validUntil.toISOString() }),
    }));
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
      };
    }
    return {
      kind: 'done',
      result: { version: answer.version, photoSha256: answer.photoSha256 },
      pushed: { version: body.version, photoSha256: body.photoSha256 },
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
      burn: true,
    };
  }
  const code = `device_${err.failure}`;
  return err.retryable
    ? { kind: 'retry', code, message: err.message }
    : { kind: 'fail', code, message: err.message, burn: true };
}

async function checkPhotoLimits(
  reads: PushReads,
  device: DeviceRow,
  sha256: string,
): Promise<Outcome | undefined> {
  if (device.maxPhotoBytes === null && device.maxPhotoPixels === null) return undefined;
  const file = await reads.file(sha256);
  if (!file) return undefined;
  if (device.maxPhotoBytes !== null && file.bytes > device.maxPhotoBytes) {
    return {
      kind: 'fail',
      code: 'photo_too_large',
      message: `The photo is ${file.bytes} bytes; device ${device.sn} accepts at most ${device.maxPhotoBytes}. Upload a smaller photo or raise the device's limit.`,
      burn: false,
    };
  }
  // The admin schema bounds maxPhotoPixels to 64…8192: a longest side, not an area.
  const side = Math.max(file.width ?? 0, file.height ?? 0);
  if (device.maxPhotoPixels !== null && side > device.maxPhotoPixels) {
    return {
      kind: 'fail',
      code: 'photo_too_many_pixels',
      message: `The photo is ${file.width}×${file.height} pixels; device ${device.sn} accepts at most ${device.maxPhotoPixels} on the longest side. Upload a smaller photo or raise the device's limit.`,
      burn: false,
    };
  }
  return undefined;
}
