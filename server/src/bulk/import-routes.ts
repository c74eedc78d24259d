import path from 'node:path';
import {
  ErrorCode,
  IMPORT_LIMITS,
  formatMessage,
  importCheckOut,
  importJobOut,
  type MessageCode,
} from '@svc/shared';
import type { AppContext } from '../platform/context.js';
import type { Request } from 'express';
import type { Api, RouteSpec } from '../platform/http/api.js';
import { actingOrganization } from '../platform/http/scope.js';
import { HttpError, invalidFields } from '../platform/http/errors.js';
import { clientIp } from '../auth/middleware.js';
import { createPerson, findByIdNumber, updatePerson } from '../people/service.js';
import { recordFace } from '../photos/faces/check.js';
import { checkImport, startImport, toJobOut, type UpsertPerson } from './import-job.js';
import { receiveFiles } from './upload.js';
import { ImportRefusal, MAX_ZIP_ENTRIES, looksLikeText, zipEntryCount } from './sources.js';

/** Refuses, before the import starts, a photos file that is no ZIP or holds too many entries. */
async function checkPhotoArchive(file: string, cleanup: () => Promise<void>): Promise<void> {
  const entries = await zipEntryCount(file).catch(() => undefined);
  if (entries !== undefined && entries <= MAX_ZIP_ENTRIES) return;
  await cleanup();
  if (entries === undefined) {
    throw invalidFields({ photos: { code: 'not_zip' } }, 'The photos file is not a ZIP archive.');
  }
  const params = { entries, max: MAX_ZIP_ENTRIES };
  throw new HttpError(
    413,
    ErrorCode.payloadTooLarge,
    `The ZIP of photos holds ${entries} entries; at most ${MAX_ZIP_ENTRIES} are accepted.`,
    { photos: formatMessage('import_zip_entries', params) },
    undefined,
    {
      params: { ...params, reason: 'import_zip_entries' },
      fieldCodes: { photos: { code: 'import_zip_entries', params } },
    },
  );
}

type Upload = Awaited<ReturnType<typeof receiveFiles>>;

/** The CSV is there and reads as text; otherwise nothing starts (and the upload is removed). */
async function checkCsv(upload: Upload): Promise<void> {
  const csv = upload.files.csv;
  if (csv === undefined) {
    await upload.cleanup();
    throw invalidFields({ csv: { code: 'choose_csv' } }, 'Attach the CSV file as "csv".');
  }
  if (!(await looksLikeText(csv))) {
    await upload.cleanup();
    throw invalidFields({ csv: { code: 'not_csv' } }, formatMessage('not_csv'));
  }
}

/**
 * An import's upload (field "csv", and "photos" if any), checked before anything is read:
 * the CSV reads as text and the photos file is a ZIP of acceptable size.
 */
async function receiveImport(ctx: AppContext, req: Request): Promise<Upload & { csv: string }> {
  const upload = await receiveFiles(req, path.join(ctx.config.dataDir, 'tmp'), {
    fields: { csv: IMPORT_LIMITS.csvBytes, photos: IMPORT_LIMITS.photosBytes },
  });
  await checkCsv(upload);
  if (upload.files.photos) await checkPhotoArchive(upload.files.photos, upload.cleanup);
  return { ...upload, csv: upload.files.csv! };
}

const tags = ['bulk'];

/** What both import uploads share: an administrator's multipart body, read by the route. */
const importUpload = {
  method: 'post',
  tags,
  access: { kind: 'session', minRole: 'admin' },
  bodyLimit: false,
  rawBody: ['multipart/form-data'],
} as const satisfies Partial<RouteSpec<undefined, undefined, undefined>>;

/** An import's row written through the people service, with its face check if any. */
function upsertPerson(ctx: AppContext): UpsertPerson {
  return async (input, photo, actor, transaction, face) => {
    const who = {
      actor: { id: actor.id, name: actor.name },
      organizationId: actor.organizationId,
      ip: actor.ip,
    };
    const withPhoto = photo ? { ...input, photoSha256: photo.sha256 } : input;
    const existing = await findByIdNumber(ctx, actor.organizationId, input.idNumber, transaction);
    const person = existing
      ? await updatePerson(ctx, actor.organizationId, existing.id, withPhoto, who, transaction)
      : await createPerson(ctx, actor.organizationId, withPhoto, who, transaction);
    if (photo) {
      const to = { personId: person.id, photoSha256: photo.sha256, replace: true };
      await recordFace(
        ctx,
        face,
        { ...to, organizationId: actor.organizationId },
        who,
        transaction,
      );
    }
    return existing ? 'updated' : 'created';
  };
}

/** The import itself (in the background) and its dry run. */
export function registerImportUploads(api: Api, ctx: AppContext): void {
  const upsert = upsertPerson(ctx);
  api.add(
    {
      ...importUpload,
      path: '/imports/people',
      summary:
        'Import people from a CSV file (field "csv": name,idNumber,phone,notes,validFrom,validUntil,enabled,spaces) with an optional ZIP of photos named by ID number (field "photos"); runs in the background',
      responses: { 202: importJobOut },
    },
    async (_input, req, res) => {
      const upload = await receiveImport(ctx, req);
      const admin = req.auth!.admin;
      const { job, done } = await startImport(ctx, {
        upsert,
        csvFile: upload.csv,
        ...(upload.files.photos && { zipFile: upload.files.photos }),
        actor: {
          id: admin.id,
          name: admin.username,
          organizationId: actingOrganization(req),
          ip: clientIp(req),
        },
        cleanup: upload.cleanup,
      });
      done.catch((err: unknown) => ctx.logger.error({ err, job: job.id }, 'import failed'));
      res.status(202).json(toJobOut(job));
    },
  );

  api.add(
    {
      ...importUpload,
      path: '/imports/people/check',
      summary:
        'Check an import CSV (field "csv") whole before importing, with its ZIP of photos if any (field "photos"): every row judged as the import would, entries not read and photos matching no row listed, nothing written',
      responses: { 200: importCheckOut },
    },
    async (_input, req, res) => {
      const upload = await receiveImport(ctx, req);
      try {
        res.json(await checkImport(ctx, upload.csv, actingOrganization(req), upload.files.photos));
      } catch (err) {
        // The file itself is unusable (no header, no name column): that is the answer, by code.
        if (!(err instanceof ImportRefusal) || err.reasons[0] === undefined) throw err;
        const reason = err.reasons[0];
        throw invalidFields(
          {
            csv: {
              code: reason.code as MessageCode,
              ...(reason.params && { params: reason.params }),
            },
          },
          err.message,
        );
      } finally {
        await upload.cleanup();
      }
    },
  );
}
