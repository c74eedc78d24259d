import { createWriteStream } from 'node:fs';
import { mkdir, rm } from 'node:fs/promises';
import path from 'node:path';
import { randomUUID } from 'node:crypto';
import { pipeline } from 'node:stream/promises';
import type { Request } from 'express';
import busboy from 'busboy';
import { ErrorCode, formatMessage } from '@svc/shared';
import { HttpError, invalidFields } from '../platform/http/errors.js';

export interface UploadLimits {
  /** Bytes per named file field; a field not listed is refused. */
  fields: Record<string, number>;
}

export interface Uploaded {
  files: Record<string, string>;
  /** Removes the temporary files. */
  cleanup: () => Promise<void>;
}

/**
 * Streams a multipart upload to temporary files under DATA_DIR/tmp (never to memory), with a
 * size limit per field. File names on disk are random: nothing from the request names a path.
 */
export async function receiveFiles(
  req: Request,
  tmpDir: string,
  limits: UploadLimits,
): Promise<Uploaded> {
  if (!req.is('multipart/form-data')) {
    throw new HttpError(415, ErrorCode.unsupportedMediaType, 'Send multipart/form-data.');
  }
  await mkdir(tmpDir, { recursive: true, mode: 0o700 });
  const files: Record<string, string> = {};
  const cleanup = () =>
    Promise.all(Object.values(files).map((f) => rm(f, { force: true }))).then(() => undefined);
  const writes: Promise<void>[] = [];
  let failure: HttpError | undefined;
  try {
    await new Promise<void>((resolve, reject) => {
      const bb = busboy({
        headers: req.headers,
        limits: {
          files: Object.keys(limits.fields).length,
          fields: 10,
          fileSize: Math.max(...Object.values(limits.fields)),
        },
      });
      bb.on('file', (field, stream) => {
        const limit = limits.fields[field];
        if (limit === undefined || files[field]) {
          failure ??= invalidFields(
            { [field]: { code: 'upload_unexpected' } },
            `Unexpected file field "${field}".`,
          );
          stream.resume();
          return;
        }
        const file = path.join(tmpDir, `upload-${randomUUID()}`);
        files[field] = file;
        const max = Math.round(limit / 1024 / 1024);
        // Said beside the field, by code: the site words it in its reader's language.
        const tooLarge = () =>
          (failure ??= new HttpError(
            413,
            ErrorCode.payloadTooLarge,
            `"${field}" is larger than ${max} MB.`,
            { [field]: formatMessage('file_too_large', { max }) },
            undefined,
            {
              params: { max, reason: 'file_too_large' },
              fieldCodes: { [field]: { code: 'file_too_large', params: { max } } },
            },
          ));
        let size = 0;
        // Counted here for the field's own limit; busboy stops at the largest one ('limit').
        stream.on('data', (chunk: Buffer) => {
          size += chunk.length;
          if (size > limit) tooLarge();
        });
        stream.on('limit', tooLarge);
        writes.push(
          pipeline(stream, createWriteStream(file, { mode: 0o600 })).catch(() => undefined),
        );
      });
      bb.on('error', (err: Error) =>
        reject(new HttpError(400, ErrorCode.invalidInput, `Malformed upload: ${err.message}`)),
      );
      bb.on('close', () => resolve());
      req.pipe(bb);
    });
    await Promise.all(writes);
    if (failure) throw failure;
    return { files, cleanup };
  } catch (err) {
    await cleanup();
    throw err;
  }
}
