import { auditActorOf, type AuditEntryOut, type AuditFilter } from '@svc/shared';
import { Op, type WhereOptions } from 'sequelize';
import type { AuditRow, Models } from '../platform/db/models.js';
import { prefixUpperBound } from '../people/keys.js';

/** Organization scope of the reader: null for a superadmin (every organization). */
export type AuditScope = string | null;

/** `column` starts with `prefix`, as a range: both databases use it the same way. */
function startsWith(prefix: string) {
  const upper = prefixUpperBound(prefix);
  return upper === undefined ? { [Op.gte]: prefix } : { [Op.gte]: prefix, [Op.lt]: upper };
}

export function auditWhere(scope: AuditScope, filter: AuditFilter): WhereOptions<AuditRow> {
  const at = {
    ...(filter.from && { [Op.gte]: new Date(filter.from) }),
    ...(filter.to && { [Op.lte]: new Date(filter.to) }),
  };
  return {
    ...(scope !== null && { organizationId: scope }),
    ...(filter.actor && { actorName: startsWith(filter.actor) }),
    ...(filter.action && { action: startsWith(filter.action) }),
    ...(filter.outcome && { outcome: filter.outcome }),
    ...(filter.targetType && { targetType: filter.targetType }),
    ...(filter.targetId && { targetId: filter.targetId }),
    ...((filter.from || filter.to) && { at }),
  };
}

/** The stored `{code, params}`; nulls for an older row (or one that does not parse). */
function summaryMessageOf(
  stored: string | null,
): Pick<AuditEntryOut, 'summaryCode' | 'summaryParams'> {
  if (stored) {
    try {
      const parsed = JSON.parse(stored) as { code?: unknown; params?: unknown };
      if (typeof parsed.code === 'string' && typeof parsed.params === 'object' && parsed.params) {
        return {
          summaryCode: parsed.code,
          summaryParams: parsed.params as AuditEntryOut['summaryParams'],
        };
      }
    } catch {
      // Written by hand, or cut: the English summary stands.
    }
  }
  return { summaryCode: null, summaryParams: null };
}

export function toAuditOut(r: AuditRow): AuditEntryOut {
  return {
    id: String(r.id),
    at: r.at.toISOString(),
    actor: r.actorName,
    ...auditActorOf(r.actorId, r.actorName),
    action: r.action,
    outcome: r.outcome,
    target: r.targetType ? { type: r.targetType, id: r.targetId } : null,
    ip: r.ip,
    summary: r.summary,
    ...summaryMessageOf(r.summaryMessage),
  };
}

/** One page of the log, newest first. */
export async function searchAudit(
  models: Models,
  where: WhereOptions<AuditRow>,
  page: { page: number; pageSize: number },
): Promise<{ items: AuditEntryOut[]; total: number }> {
  const { rows, count } = await models.Audit.findAndCountAll({
    where,
    order: [
      ['at', 'DESC'],
      ['id', 'DESC'],
    ],
    limit: page.pageSize,
    offset: (page.page - 1) * page.pageSize,
  });
  return { items: rows.map(toAuditOut), total: count };
}

/** Every matching row, oldest first (id order), in keyset pages (never all in memory). */
export async function* auditPages(
  models: Models,
  where: WhereOptions<AuditRow>,
  size = 1000,
): AsyncGenerator<AuditRow[]> {
  let after = '0';
  for (;;) {
    const rows = await models.Audit.findAll({
      where: { [Op.and]: [where, { id: { [Op.gt]: after } }] },
      order: [['id', 'ASC']],
      limit: size,
    });
    if (rows.length === 0) return;
    yield rows;
    if (rows.length < size) return;
    after = String(rows[rows.length - 1]!.id);
  }
}
