import { randomUUID } from 'node:crypto';
import type { Transaction } from 'sequelize';
import { access } from 'node:fs/promises';
import { setTimeout as sleep } from 'node:timers/promises';
import {
  instantOfWallClock,
  issuesToMessages,
  personCreate,
  validityInstant,
  type ImportCheckOut,
  type ImportJobOut,
  type ImportRowError,
  type PersonCreate,
} from '@svc/shared';
import type { AppContext } from '../platform/context.js';
import { siteTimeZone } from '../settings/time-zone.js';
import type { StoredPhoto } from '../photos/store.js';
import type { ImportJobRow } from '../platform/db/business-models.js';
import { checkRowFace, type FaceVerdict } from '../photos/faces/check.js';
import { photoTransaction } from '../photos/intake.js';
import { HttpError } from '../platform/http/errors.js';
import {
  ImportRefusal,
  countCsv,
  openPhotoArchive,
  readCsv,
  refusal,
  type CsvRecord,
  type PhotoArchive,
} from './sources.js';

export const MAX_PHOTO_BYTES = 5 * 1024 * 1024;
const MAX_ERRORS_KEPT = 1000;

export type RowError = ImportRowError;

export interface ImportActor {
  id: string;
  name: string;
  organizationId: string;
  ip: string;
}

/** Creates or updates one person by ID number inside `transaction`; the people feature's rules. */
export type UpsertPerson = (
  input: PersonCreate,
  photo: StoredPhoto | undefined,
  actor: ImportActor,
  transaction: Transaction,
  face?: FaceVerdict,
) => Promise<'created' | 'updated'>;

export function toJobOut(job: ImportJobRow): ImportJobOut {
  return {
    id: job.id,
    state: job.state,
    total: job.total,
    processed: job.processed,
    succeeded: job.succeeded,
    failed: job.failed,
    errors: JSON.parse(job.errors) as RowError[],
    createdAt: job.createdAt.toISOString(),
    finishedAt: job.finishedAt?.toISOString() ?? null,
  };
}

const BOOL: Record<string, boolean> = {
  true: true,
  false: false,
  '1': true,
  '0': false,
  yes: true,
  no: false,
  // As the Chinese template writes them.
  是: true,
  否: false,
};

/** What a date cell may hold (the part after the date optional): `expected` of its reason. */
const DATE_FORMAT =
  /^(\d{4})-(\d{2})-(\d{2})(?:[T ](\d{2}):(\d{2})(?::(\d{2})(?:\.\d+)?)?(Z|[+-]\d{2}:?\d{2})?)?$/;
const DATE_EXPECTED = 'YYYY-MM-DD or YYYY-MM-DDTHH:MM';

/**
 * A date cell as an instant, refusing one that is no day of the calendar (2026-02-30, 25:00):
 * `new Date` would roll it over to another day without a word. A date alone is the whole day in
 * the site's time zone (valid from its start, until its end), as the site's form takes it; a
 * time without an offset is that wall clock in the site's zone, not the server's.
 */
function dateCell(field: 'validFrom' | 'validUntil', s: string, zone: string): string {
  const m = DATE_FORMAT.exec(s);
  if (!m) throw refusal('import_date', { field, value: s, expected: DATE_EXPECTED });
  const [year, month, day, hour = 0, minute = 0, second = 0] = m
    .slice(1, 7)
    .map((p) => (p === undefined ? undefined : Number(p))) as [
    number,
    number,
    number,
    number?,
    number?,
    number?,
  ];
  const wall = { year, month, day, hour, minute, second, ms: 0 };
  const utc = new Date(Date.UTC(year, month - 1, day, hour, minute, second));
  const real =
    utc.getUTCFullYear() === year &&
    utc.getUTCMonth() === month - 1 &&
    utc.getUTCDate() === day &&
    utc.getUTCHours() === hour &&
    utc.getUTCMinutes() === minute &&
    utc.getUTCSeconds() === second;
  const at =
    m[4] === undefined
      ? validityInstant(s, field === 'validFrom' ? 'from' : 'until', zone)
      : m[7] === undefined
        ? instantOfWallClock(wall, zone)
        : new Date(s);
  if (!real || Number.isNaN(at.getTime())) {
    throw refusal('import_not_real_date', { field, value: s });
  }
  return at.toISOString();
}

/** The CSV column a create-schema field comes from. */
const columnOf = (path: string) => (path.startsWith('spaceIds') ? 'spaces' : path);

/** Maps a CSV record to the create schema; space names (or ids) resolve within the organization. */
function toInput(record: CsvRecord, spaces: Map<string, string[]>, zone: string): PersonCreate {
  const v = record.values;
  // A column left out (or empty) changes nothing on an update; it is not "no spaces".
  const spaceIds = v.spaces
    ?.split(';')
    .map((s) => s.trim())
    .filter(Boolean)
    .map((s) => {
      const ids = spaces.get(s.toLowerCase()) ?? [];
      if (ids.length === 1) return ids[0]!;
      throw refusal(ids.length ? 'import_ambiguous_space' : 'import_no_space', {
        field: 'spaces',
        space: s,
      });
    });
  const enabled = v.enabled === undefined ? undefined : BOOL[v.enabled.toLowerCase()];
  if (v.enabled !== undefined && enabled === undefined)
    throw refusal('import_yes_no', { field: 'enabled', value: v.enabled });
  const date = (field: 'validFrom' | 'validUntil') =>
    v[field] === undefined ? undefined : dateCell(field, v[field], zone);
  const parsed = personCreate.safeParse({
    name: v.name,
    idNumber: v.idNumber,
    phone: v.phone,
    notes: v.notes,
    validFrom: date('validFrom'),
    validUntil: date('validUntil'),
    enabled,
    spaceIds,
  });
  if (!parsed.success) {
    // Each problem names its column and says what to write there, in the forms' own words.
    const messages = issuesToMessages(parsed.error.issues, v);
    throw new ImportRefusal(
      Object.entries(messages).map(([path, m]) => ({
        code: 'import_field',
        params: { ...m.params, field: columnOf(path), problem: m.code },
      })),
    );
  }
  return parsed.data;
}

/** A row's refusal by code: the import's own, a photo's (unreadable, a face), or unforeseen. */
function reasonsOf(err: unknown): ImportRowError['reasons'] {
  if (err instanceof ImportRefusal) return err.reasons;
  if (err instanceof HttpError && err.extra.params?.reason !== undefined) {
    return [{ code: String(err.extra.params.reason), params: err.extra.params }];
  }
  if (err instanceof HttpError && err.code === 'invalid_image') {
    return [{ code: 'import_photo_unreadable' }];
  }
  return [{ code: 'import_row_failed' }];
}

/** The longest text a kept reason repeats from the file (a cell, a file name). */
const MAX_KEPT_TEXT = 200;

const clip = (text: string, max: number) =>
  text.length > max ? `${text.slice(0, max - 1)}…` : text;

/**
 * A refused row as kept: the English (logs, API users) and the reasons by code. What the file
 * said is kept short: a thousand rows of huge cells must not outgrow the job's record.
 */
const rowError = (row: number, idNumber: string | null, err: unknown): RowError => ({
  row,
  idNumber: idNumber === null ? null : clip(idNumber, MAX_KEPT_TEXT),
  error: clip((err as Error).message, 1024),
  reasons: reasonsOf(err)?.map((r) =>
    r.params
      ? {
          ...r,
          params: Object.fromEntries(
            Object.entries(r.params).map(([k, v]) => [
              k,
              typeof v === 'string' ? clip(v, MAX_KEPT_TEXT) : v,
            ]),
          ),
        }
      : r,
  ),
});

/** The job's own progress could not be written: it stops, failed, with this reason. */
class ProgressNotSaved extends ImportRefusal {
  constructor(cause: unknown) {
    super([{ code: 'import_not_saved' }]);
    this.cause = cause;
  }
}

/**
 * The first row of the file that holds each ID number (compared as the people store does,
 * case-insensitively). A later row with the same number is refused, in the check and in the
 * import alike, rather than silently overwriting the earlier one.
 */
class RowsById {
  private readonly first = new Map<string, number>();

  /** Throws the row's error when the number was on an earlier row; remembers it otherwise. */
  claim(idNumber: string, line: number): void {
    const key = idNumber.toUpperCase();
    const row = this.first.get(key);
    if (row !== undefined) throw refusal('import_repeated_id', { field: 'idNumber', row });
    this.first.set(key, line);
  }
}

const exists = (file: string) =>
  access(file).then(
    () => true,
    () => false,
  );

/** Waits while `file` exists (SVC_IMPORT_HOLD_FILE: an import held in progress on purpose). */
async function holdWhileExists(file: string): Promise<void> {
  while (await exists(file)) await sleep(100);
}

/** Starts an import: the job row exists before this returns, the rows run in the background. */
export async function startImport(
  ctx: AppContext,
  deps: {
    upsert: UpsertPerson;
    csvFile: string;
    zipFile?: string;
    actor: ImportActor;
    cleanup: () => Promise<void>;
  },
): Promise<{ job: ImportJobRow; done: Promise<void> }> {
  const now = ctx.clock.now();
  const job = await ctx.models.ImportJob.create({
    id: randomUUID(),
    organizationId: deps.actor.organizationId,
    createdBy: deps.actor.id,
    state: 'running',
    total: 0,
    processed: 0,
    succeeded: 0,
    failed: 0,
    errors: '[]',
    createdAt: now,
    finishedAt: null,
  });
  const done = runImport(ctx, job, deps).finally(() => deps.cleanup());
  return { job, done };
}

async function runImport(
  ctx: AppContext,
  job: ImportJobRow,
  deps: { upsert: UpsertPerson; csvFile: string; zipFile?: string; actor: ImportActor },
): Promise<void> {
  const errors: RowError[] = [];
  let archive: PhotoArchive | undefined;
  const finish = async (outcome: 'succeeded' | 'failed') => {
    let state = outcome;
    const counts = { processed: job.processed, succeeded: job.succeeded, failed: job.failed };
    try {
      await job.update({
        state,
        ...counts,
        errors: JSON.stringify(errors),
        finishedAt: ctx.clock.now(),
      });
    } catch (err) {
      // The whole record could not be written (the database refused it, or is gone): the job
      // still ends, failed, saying why, so it never shows "running" for good. Should even this
      // fail, the next start marks it interrupted (failInterruptedImports).
      ctx.logger.error({ err, importId: job.id }, 'import result could not be saved');
      state = 'failed';
      await job.update({
        state,
        ...counts,
        errors: JSON.stringify([rowError(0, null, new ProgressNotSaved(err))]),
        finishedAt: ctx.clock.now(),
      });
    }
    await ctx.audit.record({
      action: 'person.import',
      outcome: state === 'succeeded' ? 'success' : 'failure',
      organizationId: deps.actor.organizationId,
      actor: { id: deps.actor.id, name: deps.actor.name },
      target: { type: 'import', id: job.id },
      ip: deps.actor.ip,
      summary: `import ${state}: ${job.succeeded} of ${job.total} rows imported, ${job.failed} failed`,
      message: {
        code: 'import_finished',
        params: { state, succeeded: job.succeeded, total: job.total, failed: job.failed },
      },
    });
  };
  try {
    // Counted first, streamed twice: the file is checked whole before a row is imported,
    // and never held in memory (a 20 MB file can hold millions of rows).
    const total = await countCsv(deps.csvFile);
    archive = deps.zipFile ? await openPhotoArchive(deps.zipFile, MAX_PHOTO_BYTES) : undefined;
    await job.update({ total });
    const spaces = await spaceKeys(ctx, deps.actor.organizationId);
    const { timeZone: zone } = await siteTimeZone(ctx);
    const rowsById = new RowsById();
    let lastSaved = Date.now();
    const saveProgress = async () => {
      try {
        await job.update({
          processed: job.processed,
          succeeded: job.succeeded,
          failed: job.failed,
          errors: JSON.stringify(errors),
        });
      } catch (err) {
        throw new ProgressNotSaved(err);
      }
      lastSaved = Date.now();
    };
    for await (const record of readCsv(deps.csvFile)) {
      if (ctx.config.importHoldFile !== '' && (await exists(ctx.config.importHoldFile))) {
        await saveProgress();
        await holdWhileExists(ctx.config.importHoldFile);
      }
      const idNumber = record.values.idNumber ?? null;
      try {
        const input = toInput(record, spaces, zone);
        rowsById.claim(input.idNumber, record.line);
        const bytes = await archive?.photoFor(input.idNumber);
        // In the uploads' queue, waiting its turn rather than refused (issue 32).
        const checked =
          bytes &&
          (await ctx.photoWork.checks.run(
            async () => {
              const normalized = await ctx.photos.normalize(bytes);
              // A refused face fails the row with its reasons (no administrator accepts it here).
              return { normalized, face: await checkRowFace(ctx, normalized, deps.actor, input) };
            },
            { background: true },
          ));
        // One transaction per row: a failed row leaves nothing behind.
        const store = (t: Transaction) =>
          (checked ? ctx.photos.save(checked.normalized, t) : Promise.resolve(undefined)).then(
            (photo) => deps.upsert(input, photo, deps.actor, t, checked?.face),
          );
        await (checked
          ? photoTransaction(ctx, store, { background: true })
          : ctx.db.sequelize.transaction(store));
        job.succeeded++;
      } catch (err) {
        job.failed++;
        if (!(err instanceof ImportRefusal || err instanceof HttpError)) {
          // Said to the administrator as "could not be saved": the log keeps what happened.
          ctx.logger.warn({ err, importId: job.id, row: record.line }, 'row failed');
        } else if (err instanceof ImportRefusal && err.cause !== undefined) {
          ctx.logger.info({ importId: job.id, row: record.line, err: err.cause }, 'row refused');
        } else if (err instanceof HttpError && err.detail) {
          ctx.logger.info(
            { importId: job.id, row: record.line, detail: err.detail },
            'row refused',
          );
        }
        if (errors.length < MAX_ERRORS_KEPT) {
          errors.push(rowError(record.line, idNumber, err));
        }
      }
      job.processed++;
      if (Date.now() - lastSaved > 500) await saveProgress();
    }
    await finish('succeeded');
  } catch (err) {
    // The file itself (or the job's own record) stopped the import: said as row 0, by code.
    ctx.logger.warn({ err, importId: job.id }, 'import stopped');
    errors.push(rowError(0, null, err));
    await finish('failed');
  } finally {
    archive?.close();
  }
}

/**
 * After a restart, an import that was running is marked failed with where it stopped. Rows
 * already imported stay; running the same files again updates them instead of duplicating.
 */
export async function failInterruptedImports(ctx: AppContext): Promise<number> {
  const running = await ctx.models.ImportJob.findAll({ where: { state: 'running' } });
  for (const job of running) {
    const errors = [
      ...(JSON.parse(job.errors) as RowError[]),
      rowError(job.processed + 1, null, refusal('import_interrupted')),
    ];
    await job.update({
      state: 'failed',
      errors: JSON.stringify(errors),
      finishedAt: ctx.clock.now(),
    });
  }
  return running.length;
}

async function spaceKeys(ctx: AppContext, organizationId: string): Promise<Map<string, string[]>> {
  const spaces = new Map<string, string[]>();
  for (const s of await ctx.models.Space.findAll({ where: { organizationId }, raw: true })) {
    for (const key of [s.name.toLowerCase(), s.id])
      spaces.set(key, [...(spaces.get(key) ?? []), s.id]);
  }
  return spaces;
}

/**
 * Reads the whole CSV and judges every row as the import would (columns, formats, spaces, an
 * ID number twice in the file), writing nothing; photos and faces are judged by the import.
 */
export async function checkImport(
  ctx: AppContext,
  csvFile: string,
  organizationId: string,
): Promise<ImportCheckOut> {
  const spaces = await spaceKeys(ctx, organizationId);
  const { timeZone: zone } = await siteTimeZone(ctx);
  const rowsById = new RowsById();
  const errors: RowError[] = [];
  let total = 0;
  let failed = 0;
  for await (const record of readCsv(csvFile)) {
    total++;
    const idNumber = record.values.idNumber ?? null;
    let problem: unknown = null;
    try {
      rowsById.claim(toInput(record, spaces, zone).idNumber, record.line);
    } catch (err) {
      problem = err;
    }
    if (problem === null) continue;
    failed++;
    if (errors.length < MAX_ERRORS_KEPT) errors.push(rowError(record.line, idNumber, problem));
  }
  return { total, failed, errors };
}
