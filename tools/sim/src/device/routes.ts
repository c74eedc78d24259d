import { createHash } from 'node:crypto';
import { devicePersonPut } from '@svc/shared';
import type { DevicePersonState } from '@svc/shared';
import type { Route } from '../http/node-server.js';
import {
  hasBearer,
  readJson,
  sendError,
  sendJson,
  sendMethodNotAllowed,
  sendUnauthorized,
} from '../http/io.js';
import type { PersonStore } from './person-store.js';
import { photoRefusal, type PhotoLimits, type PhotoRefusal } from './photo-limits.js';

/** Photos arrive base64 inside JSON; this bounds a PUT body (413 beyond). */
export const MAX_PERSON_BODY_BYTES = 16 * 1024 * 1024;

export interface DeviceApi {
  store: PersonStore;
  capacity: number | undefined;
  /** What photos the device takes (photo-limits.ts). */
  photoLimits: PhotoLimits;
  /** The `saveDifferent` fault: store another photo hash than the one pushed. */
  saveDifferent(): boolean;
  /** `repeat`: a PUT of exactly the version and photo the device already held. */
  onChange(
    action: 'put' | 'delete',
    personId: string,
    stored?: DevicePersonState,
    repeat?: boolean,
  ): void;
}

const sha256 = (bytes: Buffer): string => createHash('sha256').update(bytes).digest('hex');

/** Photos whose hash was checked, kept per device: a backfill sends the same few again and again. */
const VERIFIED_PHOTOS = 64;

/** The recognition device API of PROTOCOL §3 (central → device). */
export function deviceRoutes(api: DeviceApi): Route {
  // Photo hash → the base64 text that was checked against it, and whether the device takes
  // it: the same text again needs no decoding and hashing (like a device that stores photos
  // by hash).
  const verified = new Map<string, { photo: string; refusal: PhotoRefusal | undefined }>();
  const checkPhoto = (photo: string, hash: string): PhotoRefusal | undefined | false => {
    const known = verified.get(hash);
    if (known?.photo === photo) return known.refusal;
    const bytes = Buffer.from(photo, 'base64');
    if (sha256(bytes) !== hash) return false;
    const refusal = photoRefusal(bytes, api.photoLimits);
    if (verified.size >= VERIFIED_PHOTOS) verified.clear();
    verified.set(hash, { photo, refusal });
    return refusal;
  };
  return async (req, res, path) => {
    const [prefix, collection, personId, ...rest] = path;
    if (prefix !== 'api' || collection !== 'persons' || !personId || rest.length > 0) return false;
    const key = api.store.key();
    if (!key || !hasBearer(req, key)) {
      sendUnauthorized(res);
      return true;
    }

    if (req.method === 'GET') {
      const state = api.store.get(personId);
      if (state) sendJson(res, 200, state);
      else sendError(res, 404, 'not_found', 'the person is not on this device');
    } else if (req.method === 'DELETE') {
      if (await api.store.remove(personId)) {
        api.onChange('delete', personId);
        sendJson(res, 200, { id: personId, deleted: true });
      } else {
        sendError(res, 404, 'not_found', 'the person is not on this device');
      }
    } else if (req.method === 'PUT') {
      const body = await readJson(req, devicePersonPut, MAX_PERSON_BODY_BYTES);
      if (body.id !== personId) {
        sendError(res, 400, 'invalid_input', 'the body id differs from the path', {
          id: 'must equal the id in the path',
        });
        return true;
      }
      const refusal = checkPhoto(body.photo, body.photoSha256);
      if (refusal === false) {
        sendError(res, 400, 'photo_hash_mismatch', 'photoSha256 is not the SHA-256 of the photo', {
          photoSha256: 'does not match the photo',
        });
        return true;
      }
      if (refusal) {
        sendError(res, refusal.status, refusal.code, refusal.message, { photo: refusal.message });
        return true;
      }
      if (
        api.capacity !== undefined &&
        !api.store.has(personId) &&
        api.store.size() >= api.capacity
      ) {
        sendError(res, 507, 'capacity_exceeded', `the device holds at most ${api.capacity} people`);
        return true;
      }
      const stored: DevicePersonState = {
        id: personId,
        version: body.version,
        photoSha256: api.saveDifferent()
          ? sha256(Buffer.concat([Buffer.from(body.photo, 'base64'), Buffer.from('svc-sim')]))
          : body.photoSha256,
      };
      const before = api.store.get(personId);
      const repeat =
        before?.version === stored.version && before.photoSha256 === stored.photoSha256;
      await api.store.put(stored);
      api.onChange('put', personId, stored, repeat);
      sendJson(res, 200, stored);
    } else {
      sendMethodNotAllowed(res, ['GET', 'PUT', 'DELETE']);
    }
    return true;
  };
}
