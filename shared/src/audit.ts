import { z } from 'zod';
import { pageQuery } from './admin-api.js';
import { isoTime } from './common.js';

export const auditOutcome = z.enum(['success', 'failure', 'denied', 'rate_limited']);

/**
 * `GET /api/audit` and `GET /api/exports/audit.csv` filters. `actor` and `action` match from
 * the start (`enrollment.change` finds `enrollment.change_approve` and `…_reject`); the object
 * is `targetType` and/or `targetId`, matched exactly; `from` ≤ at ≤ `to`.
 */
/** A search text: no control characters (no name, action or id holds one). */
const searchText = (max: number) =>
  z
    .string()
    .trim()
    .min(1)
    .max(max)
    .regex(/^[^\p{Cc}]*$/u, 'must not contain control characters');

export const auditFilter = z.object({
  actor: searchText(64).optional(),
  action: searchText(64).optional(),
  outcome: auditOutcome.optional(),
  targetType: searchText(32).optional(),
  targetId: searchText(64).optional(),
  from: isoTime.optional(),
  to: isoTime.optional(),
});
export type AuditFilter = z.infer<typeof auditFilter>;

export const auditQuery = pageQuery.extend(auditFilter.shape);
export type AuditQuery = z.infer<typeof auditQuery>;

/** Who wrote an audit row when it was not an administrator (see `actorCode`). */
export const auditActorCodes = [
  'service',
  'operator_command',
  'terminal',
  'announce',
  'other_org_admin',
] as const;
export type AuditActorCode = (typeof auditActorCodes)[number];

/** The code of an actor recorded by name alone (no administrator id); null: a person's name. */
export function auditActorOf(
  actorId: string | null,
  actorName: string | null,
): { actorCode: AuditActorCode | null; actorParams: Record<string, string> } {
  const none = { actorCode: null, actorParams: {} };
  if (actorId !== null) return none;
  if (actorName === null || actorName === 'system')
    return { actorCode: 'service', actorParams: {} };
  if (actorName === 'operator command') return { actorCode: 'operator_command', actorParams: {} };
  if (actorName === 'an administrator of another organization') {
    return { actorCode: 'other_org_admin', actorParams: {} };
  }
  const terminal = /^terminal (\S+)$/.exec(actorName);
  if (terminal) return { actorCode: 'terminal', actorParams: { id: terminal[1]! } };
  const announce = /^announce from (\S+)$/.exec(actorName);
  if (announce) return { actorCode: 'announce', actorParams: { from: announce[1]! } };
  return none;
}

export const auditEntryOut = z.object({
  id: z.string(),
  at: z.string(),
  actor: z.string().nullable(),
  /**
   * An actor that is not an administrator (the service's own jobs, an operator command, a
   * terminal, an announce) as a stable code with its values, for a client to name in its own
   * language (issue 34); null for an administrator's (or a signing-in user's) own name.
   */
  actorCode: z.enum(auditActorCodes).nullable(),
  actorParams: z.record(z.string(), z.string()),
  action: z.string(),
  outcome: z.string(),
  target: z.object({ type: z.string(), id: z.string().nullable() }).nullable(),
  ip: z.string().nullable(),
  /** What happened, in English, as written then (logs, CSV, API users). */
  summary: z.string(),
  /**
   * The same as a stable code and the values it names, for a client to word in its own
   * language (issue 34); null on rows written before codes, or by a writer without one.
   */
  summaryCode: z.string().nullable(),
  summaryParams: z.record(z.string(), z.union([z.string(), z.number()])).nullable(),
});
export type AuditEntryOut = z.infer<typeof auditEntryOut>;

export const auditList = z.object({
  items: z.array(auditEntryOut),
  total: z.number().int().min(0),
});
