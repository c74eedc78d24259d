import type { administratorCreate, administratorUpdate } from '@svc/shared';
import {
  administratorOut,
  administratorWithPassword,
  listOf,
  loginLockoutList,
  type LoginLockout,
} from '@svc/shared';
import type { z } from 'zod';
import { request, withQuery } from '../api';

export type Administrator = z.infer<typeof administratorOut>;
export type AdministratorCreate = z.infer<typeof administratorCreate>;
export type WithPassword = z.infer<typeof administratorWithPassword>;

export async function listAdministrators(signal?: AbortSignal): Promise<Administrator[]> {
  const path = withQuery('/api/administrators', { page: 1, pageSize: 200 });
  return (await request('GET', path, { schema: listOf(administratorOut), signal })).items;
}

/** The answer carries the one-time password: the only time it is shown. */
export function createAdministrator(body: AdministratorCreate): Promise<WithPassword> {
  return request('POST', '/api/administrators', { body, schema: administratorWithPassword });
}

/** Disabling ends the account's sessions (server side). */
export function setDisabled(
  id: string,
  disabled: boolean,
  ifMatch?: string,
): Promise<Administrator> {
  return request('PATCH', `/api/administrators/${encodeURIComponent(id)}`, {
    body: { disabled },
    schema: administratorOut,
    ifMatch,
  });
}

export function resetPassword(id: string): Promise<WithPassword> {
  return request('POST', `/api/administrators/${encodeURIComponent(id)}/password-reset`, {
    schema: administratorWithPassword,
  });
}

export async function listLockouts(signal?: AbortSignal): Promise<LoginLockout[]> {
  return (await request('GET', '/api/auth/lockouts', { schema: loginLockoutList, signal })).items;
}

export function clearLockout(username: string): Promise<undefined> {
  return request('DELETE', `/api/auth/lockouts/${encodeURIComponent(username)}`);
}

export type AdministratorUpdate = z.infer<typeof administratorUpdate>;

export function getAdministrator(id: string, signal?: AbortSignal): Promise<Administrator> {
  return request('GET', `/api/administrators/${encodeURIComponent(id)}`, {
    schema: administratorOut,
    signal,
  });
}

/** Display name, role, organization; saved over the state the form was opened with. */
export function updateAdministrator(
  id: string,
  body: AdministratorUpdate,
  ifMatch: string,
): Promise<Administrator> {
  return request('PATCH', `/api/administrators/${encodeURIComponent(id)}`, {
    body,
    schema: administratorOut,
    ifMatch,
  });
}
