import { auditFilter, auditList, auditQuery } from '@svc/shared';
import type { Request } from 'express';
import type { AppContext } from '../platform/context.js';
import type { Api } from '../platform/http/api.js';
import { auditActor, orgScope } from '../platform/http/scope.js';
import { exportAudit } from './export.js';
import { auditWhere, searchAudit, type AuditScope } from './store.js';

const scopeOf = (req: Request): AuditScope => orgScope(req);

/**
 * `GET /api/audit` (one page, newest first) and `GET /api/exports/audit.csv` (every match): the
 * audit log of the administrator's organization (a superadmin's: all), searched by actor,
 * action, object and time.
 */
export function registerAuditRoutes(api: Api, ctx: AppContext): void {
  api.add(
    {
      method: 'get',
      path: '/audit',
      summary:
        'Audit log, newest first; filters: actor and action (prefix), outcome, targetType, targetId, from/to (ISO times, inclusive)',
      tags: ['audit'],
      access: { kind: 'session', minRole: 'admin' },
      query: auditQuery,
      responses: { 200: auditList },
    },
    async ({ query }, req, res) => {
      res.json(await searchAudit(ctx.models, auditWhere(scopeOf(req), query), query));
    },
  );

  api.add(
    {
      method: 'get',
      path: '/exports/audit.csv',
      summary:
        'The audit log as CSV, oldest first (same filters as the list; formula cells neutralized)',
      tags: ['audit'],
      access: { kind: 'session', minRole: 'admin' },
      query: auditFilter,
      responses: { 200: { mediaType: 'text/csv' } },
    },
    async ({ query }, req, res) => {
      // Recorded first, so the export appears in what it exports.
      await ctx.audit.record({
        action: 'audit.export',
        ...auditActor(req),
        summary: 'audit log exported as CSV',
        message: { code: 'audit_exported', params: {} },
      });
      await exportAudit(ctx.models, auditWhere(scopeOf(req), query), res);
    },
  );
}
