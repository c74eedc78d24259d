/** The people API (PROTOCOL §7) the people pages, the spaces page and the event search use. */
import {
  peopleList,
  personFaceOut,
  personOut,
  personSyncOut,
  photoFit,
  photoStored,
  type PersonCreate,
  type PersonFaceOut,
  type PersonOut,
  type PersonSyncOut,
  type PersonUpdate,
  type PhotoUnfitDevice,
} from '@svc/shared';
import { request, withQuery } from '../api';

export interface PeopleSearch {
  q?: string;
  spaceId?: string;
  sort?: 'name' | '-name';
  page: number;
  pageSize: number;
}

const personPath = (id: string) => `/api/people/${encodeURIComponent(id)}`;

export function listPeople(search: PeopleSearch, signal?: AbortSignal) {
  const { q, spaceId, sort = 'name', page, pageSize } = search;
  return request('GET', withQuery('/api/people', { q, spaceId, sort, page, pageSize }), {
    schema: peopleList,
    signal,
  });
}

export function getPerson(id: string, signal?: AbortSignal): Promise<PersonOut> {
  return request('GET', personPath(id), { schema: personOut, signal });
}

export function createPerson(body: PersonCreate): Promise<PersonOut> {
  return request('POST', '/api/people', { body, schema: personOut });
}

export function updatePerson(id: string, body: PersonUpdate, ifMatch?: string): Promise<PersonOut> {
  return request('PATCH', personPath(id), { body, schema: personOut, ifMatch });
}

/** Erases a person; the devices that hold them are told by the synchronization worker. */
export async function deletePerson(id: string): Promise<void> {
  await request('DELETE', personPath(id));
}

/**
 * `acceptFace`: an administrator keeps a photo the face check refused (the server records who,
 * in the audit log); only ever sent after that refusal was shown.
 */
export function uploadPhoto(id: string, photo: Blob, acceptFace = false) {
  const query = acceptFace ? '?acceptFace=true' : '';
  return request('PUT', `${personPath(id)}/photo${query}`, { body: photo, schema: photoStored });
}

/** The devices of the person that cannot take their photo, with the reason (the page's warning). */
export async function getPhotoFit(id: string, signal?: AbortSignal): Promise<PhotoUnfitDevice[]> {
  const fit = await request('GET', `${personPath(id)}/photo/fit`, { schema: photoFit, signal });
  return fit.unfitDevices;
}

/** The photo's address; the hash in the query makes a new photo a new URL for the browser. */
export function photoUrl(person: Pick<PersonOut, 'id' | 'photoSha256'>): string | null {
  if (person.photoSha256 === null) return null;
  return `${personPath(person.id)}/photo?v=${person.photoSha256.slice(0, 16)}`;
}

/** What the face check found in the person's photo. */
export function getPersonFace(id: string, signal?: AbortSignal): Promise<PersonFaceOut> {
  return request('GET', `${personPath(id)}/face`, { schema: personFaceOut, signal });
}

/** The person's state on each device (state, attempts, the last error's words). */
export type PersonSyncRow = PersonSyncOut['items'][number];

export async function getPersonSync(id: string, signal?: AbortSignal): Promise<PersonSyncRow[]> {
  return (await request('GET', `${personPath(id)}/sync`, { schema: personSyncOut, signal })).items;
}

/** Every person of the organization as CSV (a plain link: the browser downloads it). */
export const PEOPLE_EXPORT_URL = '/api/exports/people.csv';
