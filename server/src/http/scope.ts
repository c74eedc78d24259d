import type { Request } from 'express';
import type { WhereOptions } from 'sequelize';
import { clientIp } from '../auth/middleware.js';
import type { AuditEntry } from '../audit/audit.js';
import { httpErrors } from './errors.js';

/**
 * Organization scoping: every business row belongs to one organization and no administrator
 * reads or changes another's rows, except a superadmin. Rows of another organization answer
 * 404, exactly like rows that do not exist, so ids cannot be probed.
 */
export function orgWhere(req: Request): { organizationId?: string } {
  const admin = req.auth!.admin;
  return admin.role === 'superadmin' ? {} : { organizationId: admin.organizationId };
}

/** The one organization a service limits the administrator to; null for a superadmin (all). */
export function orgScope(req: Request): string | null {
  return orgWhere(req).organizationId ?? null;
}

/** Throws 404 unless the row exists and the administrator may see its organization. */
export function visible<T extends { organizationId: string }>(
  req: Request,
  row: T | null,
  what: string,
): T {
  const admin = req.auth!.admin;
  if (!row || (admin.role !== 'superadmin' && row.organizationId !== admin.organizationId)) {
    throw httpErrors.notFound(`${what} not found.`);
  }
  return row;
}

/** `where` for a lookup by id inside the administrator's organizations. */
export function byIdWhere(req: Request, id: string): WhereOptions {
  return { id, ...orgWhere(req) };
}

/** Who did it, for the audit log. */
export function auditActor(req: Request): Pick<AuditEntry, 'actor' | 'organizationId' | 'ip'> {
  const admin = req.auth!.admin;
  return {
    actor: { id: admin.id, name: admin.username },
    organizationId: admin.organizationId,
    ip: clientIp(req),
  };
}
