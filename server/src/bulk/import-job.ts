import { randomUUID } from 'node:crypto';
import type { Transaction } from 'sequelize';
import { access } from 'node:fs/promises';
import { setTimeout as sleep } from 'node:timers/promises';
import {
  IMPORT_PHOTO_LISTED,
  type ImportCheckOut,
  type ImportPhotosReport,
  type ImportJobOut,
  type ImportRowError,
  type PersonCreate,
} from '@svc/shared';
import type { AppContext } from '../platform/context.js';
import type { StoredPhoto } from '../photos/store.js';
import type { ImportJobRow } from '../platform/db/business-models.js';
import { checkRowFace, type FaceVerdict } from '../photos/faces/check.js';
import { photoTransaction } from '../photos/intake.js';
import { HttpError } from '../platform/http/errors.js';
import { ImportRefusal, countCsv, readCsv, refusal } from './sources.js';
import { openPhotoArchive, type PhotoArchive } from './photo-archive.js';
import { RowsById, columnOf, rowRules, toInput } from './rows.js';

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
    photos: job.photos === null ? null : (JSON.parse(job.photos) as ImportPhotosReport),
    createdAt: job.createdAt.toISOString(),
    finishedAt: job.finishedAt?.toISOString() ?? null,
  };
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
  // A field the people rules refused: said as the CSV's own field problems are.
  const fieldCodes = err instanceof HttpError ? err.extra.fieldCodes : undefined;
  if (fieldCodes && Object.keys(fieldCodes).length > 0) {
    return Object.entries(fieldCodes).map(([path, m]) => ({
      code: 'import_field',
      params: { ...m.params, field: columnOf(path), problem: m.code },
    }));
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
  deps: ImportDeps & { cleanup: () => Promise<void> },
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
    photos: null,
    createdAt: now,
    finishedAt: null,
  });
  const done = runImport(ctx, job, deps).finally(() => deps.cleanup());
  return { job, done };
}

type ImportDeps = { upsert: UpsertPerson; csvFile: string; zipFile?: string; actor: ImportActor };

/** A problem of a row's photo alone (its entry, its image, its face): the row goes on without it. */
const photoProblem = (err: unknown) =>
  err instanceof ImportRefusal ||
  (err instanceof HttpError && err.status < 500 && err.status !== 429);

/**
 * A row's photo from the ZIP, normalized and face-checked, in the uploads' queue (waiting its
 * turn rather than refused, issue 32). A photo that cannot be used is the row's `problem`: the
 * person is saved without it, as the person form does (issue 30).
 */
async function rowPhoto(
  ctx: AppContext,
  archive: PhotoArchive | undefined,
  input: PersonCreate,
  actor: ImportActor,
) {
  try {
    const bytes = await archive?.photoFor(input.idNumber);
    if (!bytes) return {};
    const checked = await ctx.photoWork.checks.run(
      async () => {
        const normalized = await ctx.photos.normalize(bytes);
        return { normalized, face: await checkRowFace(ctx, normalized, actor, input) };
      },
      { background: true },
    );
    return { checked };
  } catch (err) {
    if (!photoProblem(err)) throw err;
    return { problem: err };
  }
}

/** One row imported in its own transaction (a failed row leaves nothing behind). */
async function importRow(
  ctx: AppContext,
  deps: ImportDeps,
  input: PersonCreate,
  archive: PhotoArchive | undefined,
): Promise<{ problem?: unknown }> {
  const { checked, problem } = await rowPhoto(ctx, archive, input, deps.actor);
  const store = (t: Transaction) =>
    (checked ? ctx.photos.save(checked.normalized, t) : Promise.resolve(undefined)).then((photo) =>
      deps.upsert(input, photo, deps.actor, t, checked?.face),
    );
  await (checked
    ? photoTransaction(ctx, store, { background: true })
    : ctx.db.sequelize.transaction(store));
  return { problem };
}

/** A row saved without its photo, as kept: the photo's problem, worded as the person form does. */
const withoutPhoto = (row: number, idNumber: string, problem: unknown): RowError => {
  const kept = rowError(row, idNumber, problem);
  return { ...kept, error: clip(`Saved without a photo: ${kept.error}`, 1024) };
};

/** Says in the log why a row was refused (the administrator reads its reasons by code). */
function logRefusal(ctx: AppContext, importId: string, row: number, err: unknown): void {
  if (!(err instanceof ImportRefusal || err instanceof HttpError)) {
    // Said to the administrator as "could not be saved": the log keeps what happened.
    ctx.logger.warn({ err, importId, row }, 'row failed');
  } else if (err instanceof ImportRefusal && err.cause !== undefined) {
    ctx.logger.info({ importId, row, err: err.cause }, 'row refused');
  } else if (err instanceof HttpError && err.detail) {
    ctx.logger.info({ importId, row, detail: err.detail }, 'row refused');
  }
}

/** What the job keeps about its ZIP while it runs; null without one. */
function photosReport(archive: PhotoArchive | undefined): ImportPhotosReport | null {
  if (!archive) return null;
  return {
    withoutPhoto: [],
    withoutPhotoCount: 0,
    refusedEntries: archive.refused,
    refusedEntryCount: archive.refusedCount,
    unmatched: [],
    unmatchedCount: 0,
  };
}

async function runImport(ctx: AppContext, job: ImportJobRow, deps: ImportDeps): Promise<void> {
  const errors: RowError[] = [];
  let archive: PhotoArchive | undefined;
  let report: ImportPhotosReport | null = null;
  const finish = async (outcome: 'succeeded' | 'failed') => {
    let state = outcome;
    const counts = { processed: job.processed, succeeded: job.succeeded, failed: job.failed };
    if (report && archive && outcome === 'succeeded') {
      const unmatched = archive.unmatched();
      report = { ...report, unmatched: unmatched.names, unmatchedCount: unmatched.count };
    }
    try {
      await job.update({
        state,
        ...counts,
        errors: JSON.stringify(errors),
        photos: report && JSON.stringify(report),
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
    report = photosReport(archive);
    await job.update({ total, photos: report && JSON.stringify(report) });
    const rules = await rowRules(ctx, deps.actor.organizationId);
    const rowsById = new RowsById();
    let lastSaved = Date.now();
    const saveProgress = async () => {
      try {
        await job.update({
          processed: job.processed,
          succeeded: job.succeeded,
          failed: job.failed,
          errors: JSON.stringify(errors),
          photos: report && JSON.stringify(report),
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
      // Its photo matched a row, whatever becomes of the row.
      if (idNumber !== null) archive?.seen(idNumber);
      try {
        const input = toInput(record, rules);
        rowsById.claim(input.idNumber, record.line);
        const { problem } = await importRow(ctx, deps, input, archive);
        job.succeeded++;
        if (problem !== undefined && report) {
          logRefusal(ctx, job.id, record.line, problem);
          report.withoutPhotoCount++;
          if (report.withoutPhoto.length < IMPORT_PHOTO_LISTED) {
            report.withoutPhoto.push(withoutPhoto(record.line, input.idNumber, problem));
          }
        }
      } catch (err) {
        job.failed++;
        logRefusal(ctx, job.id, record.line, err);
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

/**
 * Reads the whole CSV and judges every row as the import would (columns, formats, spaces, an
 * ID number twice in the file), writing nothing; photos and faces are judged by the import.
 */
export async function checkImport(
  ctx: AppContext,
  csvFile: string,
  organizationId: string,
  zipFile?: string,
): Promise<ImportCheckOut> {
  const archive = zipFile ? await openPhotoArchive(zipFile, MAX_PHOTO_BYTES) : undefined;
  try {
    const rows = await checkRows(ctx, csvFile, organizationId, archive);
    const report = photosReport(archive);
    if (!report || !archive) return { ...rows, photos: null };
    const unmatched = archive.unmatched();
    return {
      ...rows,
      photos: { ...report, unmatched: unmatched.names, unmatchedCount: unmatched.count },
    };
  } finally {
    archive?.close();
  }
}

async function checkRows(
  ctx: AppContext,
  csvFile: string,
  organizationId: string,
  archive: PhotoArchive | undefined,
): Promise<Omit<ImportCheckOut, 'photos'>> {
  const rules = await rowRules(ctx, organizationId);
  const rowsById = new RowsById();
  const errors: RowError[] = [];
  let total = 0;
  let failed = 0;
  for await (const record of readCsv(csvFile)) {
    total++;
    const idNumber = record.values.idNumber ?? null;
    if (idNumber !== null) archive?.seen(idNumber);
    let problem: unknown = null;
    try {
      rowsById.claim(toInput(record, rules).idNumber, record.line);
    } catch (err) {
      problem = err;
    }
    if (problem === null) continue;
    failed++;
    if (errors.length < MAX_ERRORS_KEPT) errors.push(rowError(record.line, idNumber, problem));
  }
  return { total, failed, errors };
}
