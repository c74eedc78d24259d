/** The administrator API the pages use (PROTOCOL §7), each answer parsed with its schema. */
import {
  deviceOut,
  listOf,
  peopleList,
  personOut,
  personSyncOut,
  photoStored,
  photoFit,
  type PhotoUnfitDevice,
  spaceOut,
  type DeviceOut,
  type PersonSyncOut,
  type PersonCreate,
  type PersonOut,
  type PersonUpdate,
  type SpaceOut,
} from '@svc/shared';
import { request } from './api';
import { recognitionEventList, type RecognitionEventOut } from '@svc/shared';

/** `path` with the query set from `params` (empty values left out). */
export function withQuery(
  path: string,
  params: Record<string, string | number | undefined>,
): string {
  const query = new URLSearchParams();
  for (const [key, value] of Object.entries(params)) {
    if (value !== undefined && value !== '') query.set(key, String(value));
  }
  const text = query.toString();
  return text === '' ? path : `${path}?${text}`;
}

const spaceList = listOf(spaceOut);
const deviceList = listOf(deviceOut);

export interface PeopleSearch {
  q?: string;
  spaceId?: string;
  sort?: 'name' | '-name';
  page: number;
  pageSize: number;
}

export function listPeople(search: PeopleSearch, signal?: AbortSignal) {
  const { q, spaceId, sort = 'name', page, pageSize } = search;
  return request('GET', withQuery('/api/people', { q, spaceId, sort, page, pageSize }), {
    schema: peopleList,
    signal,
  });
}

export function getPerson(id: string, signal?: AbortSignal): Promise<PersonOut> {
  return request('GET', `/api/people/${encodeURIComponent(id)}`, { schema: personOut, signal });
}

export function createPerson(body: PersonCreate): Promise<PersonOut> {
  return request('POST', '/api/people', { body, schema: personOut });
}

export function updatePerson(id: string, body: PersonUpdate, ifMatch?: string): Promise<PersonOut> {
  const path = `/api/people/${encodeURIComponent(id)}`;
  return request('PATCH', path, { body, schema: personOut, ifMatch });
}

/**
 * `acceptFace`: an administrator keeps a photo the face check refused (the server records who,
 * in the audit log); only ever sent after that refusal was shown.
 */
export function uploadPhoto(id: string, photo: Blob, acceptFace = false) {
  const query = acceptFace ? '?acceptFace=true' : '';
  return request('PUT', `/api/people/${encodeURIComponent(id)}/photo${query}`, {
    body: photo,
    schema: photoStored,
  });
}

/** The devices of the person that cannot take their photo, with the reason (the page's warning). */
export async function getPhotoFit(id: string, signal?: AbortSignal): Promise<PhotoUnfitDevice[]> {
  const fit = await request('GET', `/api/people/${encodeURIComponent(id)}/photo/fit`, {
    schema: photoFit,
    signal,
  });
  return fit.unfitDevices;
}

/** The photo's address; the hash in the query makes a new photo a new URL for the browser. */
export function photoUrl(person: Pick<PersonOut, 'id' | 'photoSha256'>): string | null {
  if (person.photoSha256 === null) return null;
  return `/api/people/${encodeURIComponent(person.id)}/photo?v=${person.photoSha256.slice(0, 16)}`;
}

/** The person's state on each device (state, attempts, the last error's words). */
export type PersonSyncRow = PersonSyncOut['items'][number];

export async function getPersonSync(id: string, signal?: AbortSignal): Promise<PersonSyncRow[]> {
  const path = `/api/people/${encodeURIComponent(id)}/sync`;
  return (await request('GET', path, { schema: personSyncOut, signal })).items;
}

/** Every space of the organization (a page of 200 is the API's largest). */
export async function listAllSpaces(signal?: AbortSignal): Promise<SpaceOut[]> {
  return listAll((page) =>
    request('GET', withQuery('/api/spaces', { page, pageSize: 200 }), {
      schema: spaceList,
      signal,
    }),
  );
}

export async function listAllDevices(signal?: AbortSignal): Promise<DeviceOut[]> {
  return listAll((page) =>
    request('GET', withQuery('/api/devices', { page, pageSize: 200 }), {
      schema: deviceList,
      signal,
    }),
  );
}

async function listAll<T>(
  fetchPage: (page: number) => Promise<{ items: T[]; total: number }>,
): Promise<T[]> {
  const all: T[] = [];
  // Bounded: an organization with more than 10,000 spaces or devices gets the first 10,000.
  for (let page = 1; page <= 50; page++) {
    const { items, total } = await fetchPage(page);
    all.push(...items);
    if (items.length === 0 || all.length >= total) break;
  }
  return all;
}

export interface EventSearch {
  personId?: string;
  deviceId?: string;
  from?: string;
  to?: string;
  page: number;
  pageSize: number;
}

export function listEvents(
  search: EventSearch,
  signal?: AbortSignal,
): Promise<{ items: RecognitionEventOut[]; total: number }> {
  return request('GET', withQuery('/api/recognition/events', { ...search }), {
    schema: recognitionEventList,
    signal,
  });
}

/** Erases a person; the devices that hold them are told by the synchronization worker. */
export async function deletePerson(id: string): Promise<void> {
  await request('DELETE', `/api/people/${encodeURIComponent(id)}`);
}

/** Every person of the organization as CSV (a plain link: the browser downloads it). */
export const PEOPLE_EXPORT_URL = '/api/exports/people.csv';

/** The events of the same search as CSV, every page of it. */
export function exportEventsUrl(search: EventSearch): string {
  const { personId, deviceId, from, to } = search;
  return withQuery('/api/exports/events.csv', { personId, deviceId, from, to });
}
