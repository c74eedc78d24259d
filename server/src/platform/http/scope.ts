import type { Request } from 'express';
import type { WhereOptions } from 'sequelize';
import { httpErrors } from './errors.js';
import { clientIp } from './net.js';

/**
 * Organization scoping: every business row belongs to one organization and no administrator
 * reads or changes another's rows, except a superadmin. Rows of another organization answer
 * 404, exactly like rows that do not exist, so ids cannot be probed.
 *
 * A superadmin's session may name a working organization (`PUT /api/auth/organization`): it
 * then scopes every read like an administrator of that organization, and new rows go there.
 * Without one, a superadmin sees every organization and creates in their own.
 */
type Auth = Pick<Request, 'auth'>;

/** The working organization a superadmin's session chose; null for everyone else or none. */
export function chosenOrganization(req: Auth): string | null {
  const auth = req.auth!;
  return auth.admin.role === 'superadmin' ? (auth.session.organizationId ?? null) : null;
}

/** The one organization reads are limited to; null for a superadmin working in all. */
export function orgScope(req: Auth): string | null {
  const admin = req.auth!.admin;
  if (admin.role !== 'superadmin') return admin.organizationId;
  return chosenOrganization(req);
}

export function orgWhere(req: Auth): { organizationId?: string } {
  const scope = orgScope(req);
  return scope === null ? {} : { organizationId: scope };
}

/** The organization a new row (person, space, device, import, …) belongs to. */
export function actingOrganization(req: Auth): string {
  return orgScope(req) ?? req.auth!.admin.organizationId;
}

/** Throws 404 unless the row exists and the administrator may see its organization. */
export function visible<T extends { organizationId: string }>(
  req: Auth,
  row: T | null,
  what: string,
): T {
  const scope = orgScope(req);
  if (!row || (scope !== null && row.organizationId !== scope)) {
    throw httpErrors.notFound(`${what} not found.`);
  }
  return row;
}

/** `where` for a lookup by id inside the administrator's organizations. */
export function byIdWhere(req: Auth, id: string): WhereOptions {
  return { id, ...orgWhere(req) };
}

/** Who did it, as an audit entry names them (AuditEntry, audit/audit.ts). */
export interface Actor {
  actor: { id: string; name: string };
  organizationId: string;
  ip: string;
}

/** Who did it, for the audit log (filed under the organization worked in). */
export function auditActor(req: Request): Actor {
  const admin = req.auth!.admin;
  return {
    actor: { id: admin.id, name: admin.username },
    organizationId: actingOrganization(req),
    ip: clientIp(req),
  };
}
