import busboy from 'busboy';
import express, { type Request, type RequestHandler, type Response } from 'express';
import { ErrorCode, isBase64, photoBase64 } from '@svc/shared';
import { HttpError, invalidFields, parseWith } from '../platform/http/errors.js';
import { MAX_PHOTO_BYTES } from './normalize.js';

/** The body forms `PUT /api/people/{id}/photo` accepts. */
export const PHOTO_UPLOAD_TYPES = [
  'image/jpeg',
  'image/png',
  'multipart/form-data',
  'application/json',
];
/** Base64 of MAX_PHOTO_BYTES is 4/3 of it (≈ 7 MB); the rest is JSON around it. */
export const BASE64_PHOTO_JSON_LIMIT = '7.5mb';
/** Room for the multipart boundaries and part headers around the file. */
const MULTIPART_OVERHEAD = 64 * 1024;

const tooLarge = () =>
  new HttpError(
    413,
    ErrorCode.payloadTooLarge,
    `The photo is larger than ${MAX_PHOTO_BYTES} bytes (5 MB).`,
  );

const DATA_URL = /^data:image\/(?:jpeg|png);base64,/;

/** Strict base64 (an optional `data:image/…;base64,` prefix and line breaks are tolerated). */
export function decodeBase64Photo(value: string, field = 'photo'): Buffer {
  const text = value.replace(DATA_URL, '').replace(/\s+/g, '');
  if (text.length === 0 || !isBase64(text) || text.length % 4 === 1) {
    throw invalidFields({ [field]: { code: 'photo_base64' } });
  }
  return Buffer.from(text, 'base64');
}

function run(handler: RequestHandler, req: Request, res: Response): Promise<void> {
  return new Promise((resolve, reject) => {
    void handler(req, res, (err?: unknown) => (err ? reject(toHttpError(err)) : resolve()));
  });
}

function toHttpError(err: unknown): Error {
  const type = (err as { type?: string }).type;
  if (type === 'entity.too.large') return tooLarge();
  return err instanceof Error ? err : new Error(String(err));
}

const hasBody = (req: Request) =>
  req.headers['transfer-encoding'] !== undefined ||
  (req.headers['content-length'] !== undefined && req.headers['content-length'] !== '0');

const rawParser = express.raw({ type: ['image/jpeg', 'image/png'], limit: MAX_PHOTO_BYTES });
const jsonParser = express.json({ limit: BASE64_PHOTO_JSON_LIMIT, strict: true });

/**
 * Reads the uploaded photo from the request, whichever of the accepted forms it came in:
 * the raw image, multipart/form-data with one file field `photo`, or JSON `{"photo":"<base64>"}`.
 * The content is not trusted here; normalizePhoto checks what it really is.
 */
export async function readPhotoUpload(req: Request, res: Response): Promise<Buffer> {
  if (!hasBody(req)) {
    throw invalidFields({ photo: { code: 'required' } }, 'Send the photo in the request body.');
  }
  if (req.is(['image/jpeg', 'image/png'])) {
    await run(rawParser, req, res);
    return Buffer.isBuffer(req.body) ? req.body : Buffer.alloc(0);
  }
  if (req.is('multipart/form-data')) return readMultipart(req);
  if (req.is('application/json')) {
    await run(jsonParser, req, res);
    return decodeBase64Photo(parseWith(photoBase64, req.body).photo);
  }
  throw new HttpError(
    415,
    ErrorCode.unsupportedMediaType,
    'Send the photo as image/jpeg or image/png, as multipart/form-data with a file field "photo", or as JSON {"photo":"<base64>"}.',
  );
}

function readMultipart(req: Request): Promise<Buffer> {
  const declared = Number(req.headers['content-length'] ?? 0);
  if (declared > MAX_PHOTO_BYTES + MULTIPART_OVERHEAD) return Promise.reject(tooLarge());
  return new Promise((resolve, reject) => {
    let parser: busboy.Busboy;
    try {
      parser = busboy({
        headers: req.headers,
        limits: {
          files: 1,
          fileSize: MAX_PHOTO_BYTES,
          fields: 16,
          fieldSize: 1024,
          parts: 17,
          headerPairs: 32,
        },
      });
    } catch {
      reject(
        invalidFields(
          { photo: { code: 'upload_malformed' } },
          'Malformed multipart/form-data body.',
        ),
      );
      return;
    }
    const chunks: Buffer[] = [];
    let found = false;
    let failure: HttpError | undefined;
    const fail = (err: HttpError) => (failure ??= err);
    parser.on('file', (name, stream) => {
      if (name !== 'photo' || found) {
        stream.resume();
        fail(
          invalidFields(
            { [name]: { code: 'upload_unexpected' } },
            'Send exactly one file, in the field "photo".',
          ),
        );
        return;
      }
      found = true;
      stream.on('data', (chunk: Buffer) => chunks.push(chunk));
      stream.on('limit', () => fail(tooLarge()));
    });
    const tooManyParts = () =>
      fail(invalidFields({ photo: { code: 'upload_one_file' } }, 'Send one file field "photo".'));
    parser.on('filesLimit', tooManyParts);
    parser.on('fieldsLimit', tooManyParts);
    parser.on('partsLimit', tooManyParts);
    parser.on('error', () => {
      req.unpipe(parser);
      req.resume();
      reject(
        failure ??
          invalidFields(
            { photo: { code: 'upload_malformed' } },
            'Malformed multipart/form-data body.',
          ),
      );
    });
    parser.on('close', () => {
      if (failure) reject(failure);
      else if (!found) reject(invalidFields({ photo: { code: 'required' } }, 'No file "photo".'));
      else resolve(Buffer.concat(chunks));
    });
    req.pipe(parser);
  });
}
