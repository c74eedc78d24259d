import { auditFilter, auditList, ruleText, type AuditFilter } from '@svc/shared';
import { z } from 'zod';
import { request, withQuery } from '../api';
import { localInputToIso } from '../people/datetime';

/** The search form: text boxes and local times, as the page's URL holds them. */
export interface AuditFormValues {
  actor: string;
  action: string;
  outcome: string;
  targetType: string;
  targetId: string;
  from: string;
  to: string;
}

/** Form values → the API's filter input: empty boxes left out, local times made ISO UTC. */
export function toFilterInput(values: AuditFormValues): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [key, value] of Object.entries(values) as [keyof AuditFormValues, string][]) {
    const text = value.trim();
    if (text === '') continue;
    // A time the browser cannot read goes on as typed, so the shared schema refuses it.
    out[key] = key === 'from' || key === 'to' ? (localInputToIso(text) ?? text) : text;
  }
  return out;
}

/** The server's own rule (`auditFilter`) applied to what the form holds. */
export const auditFormSchema = z.preprocess(
  (values) => toFilterInput(values as AuditFormValues),
  // A range that ends before it starts finds nothing: said under "Until", and not searched.
  auditFilter.refine((f) => f.from === undefined || f.to === undefined || f.from <= f.to, {
    message: ruleText('time_range'),
    path: ['to'],
  }),
);

/** The filter the API gets, or null when the values do not pass the shared schema. */
export function toFilter(values: AuditFormValues): AuditFilter | null {
  const parsed = auditFormSchema.safeParse(values);
  return parsed.success ? parsed.data : null;
}

export function searchAudit(
  filter: AuditFilter,
  page: { page: number; pageSize: number },
  signal?: AbortSignal,
) {
  return request('GET', withQuery('/api/audit', { ...filter, ...page }), {
    schema: auditList,
    signal,
  });
}

/** The CSV export of the same search (a plain link: the browser downloads it). */
export function exportUrl(filter: AuditFilter): string {
  return withQuery('/api/exports/audit.csv', { ...filter });
}
