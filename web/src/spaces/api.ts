import { listOf, spaceOut, type SpaceCreate, type SpaceOut } from '@svc/shared';
import { listAll, request } from '../api';

const spaceList = listOf(spaceOut);

/** Every space of the organization. */
export function listAllSpaces(signal?: AbortSignal): Promise<SpaceOut[]> {
  return listAll('/api/spaces', spaceList, signal);
}

export function createSpace(body: SpaceCreate): Promise<SpaceOut> {
  return request('POST', '/api/spaces', { body, schema: spaceOut });
}

export function updateSpace(
  id: string,
  body: Partial<SpaceCreate>,
  ifMatch?: string,
): Promise<SpaceOut> {
  const path = `/api/spaces/${encodeURIComponent(id)}`;
  return request('PATCH', path, { body, schema: spaceOut, ifMatch });
}

/** 409 when people, devices or spaces below still depend on it (the message says which). */
export function deleteSpace(id: string): Promise<undefined> {
  return request('DELETE', `/api/spaces/${encodeURIComponent(id)}`);
}
