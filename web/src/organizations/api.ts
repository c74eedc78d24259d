import {
  organizationList,
  organizationOut,
  type OrganizationCreate,
  type OrganizationList,
  type OrganizationOut,
} from '@svc/shared';
import { request } from '../api';

export function listOrganizations(signal: AbortSignal): Promise<OrganizationList> {
  return request('GET', '/api/organizations', { schema: organizationList, signal });
}

/** Superadmins only (the server answers 403 to anyone else). */
export function createOrganization(body: OrganizationCreate): Promise<OrganizationOut> {
  return request('POST', '/api/organizations', { body, schema: organizationOut });
}

/** A superadmin, or an administrator of that organization. */
export function renameOrganization(
  id: string,
  body: OrganizationCreate,
  ifMatch?: string,
): Promise<OrganizationOut> {
  return request('PATCH', `/api/organizations/${encodeURIComponent(id)}`, {
    body,
    schema: organizationOut,
    ifMatch,
  });
}
