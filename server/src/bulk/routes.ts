import { idParams, importJobOut, listOf, type ImportPhotosReport } from '@svc/shared';
import type { AppContext } from '../platform/context.js';
import type { Api } from '../platform/http/api.js';
import { auditActor, orgWhere, visible } from '../platform/http/scope.js';
import { exportImportErrors, exportLocale, exportPeople } from './export.js';
import { toJobOut, type RowError } from './import-job.js';
import { registerImportUploads } from './import-routes.js';

const tags = ['bulk'];

/** Bulk: CSV import of people with a ZIP of photos, CSV exports of people and the audit log. */
export function registerBulkRoutes(api: Api, ctx: AppContext): void {
  registerImportUploads(api, ctx);
  registerImportReads(api, ctx);
  registerExports(api, ctx);
}

/** Imports as they run and after: the list, one import, its refused rows as CSV. */
function registerImportReads(api: Api, ctx: AppContext): void {
  api.add(
    {
      method: 'get',
      path: '/imports',
      summary: 'Recent imports with their progress',
      tags,
      access: { kind: 'session' },
      responses: { 200: listOf(importJobOut) },
    },
    async (_input, req, res) => {
      const { rows, count } = await ctx.models.ImportJob.findAndCountAll({
        where: orgWhere(req),
        order: [['createdAt', 'DESC']],
        limit: 50,
      });
      res.json({ items: rows.map(toJobOut), total: count });
    },
  );

  api.add(
    {
      method: 'get',
      path: '/imports/:id',
      summary: 'One import: progress while it runs, per-row errors',
      tags,
      access: { kind: 'session' },
      params: idParams,
      resource: 'import',
      responses: { 200: importJobOut },
    },
    async ({ params }, req, res) => {
      res.json(toJobOut(visible(req, await ctx.models.ImportJob.findByPk(params.id), 'Import')));
    },
  );

  api.add(
    {
      method: 'get',
      path: '/imports/:id/errors.csv',
      summary:
        'The rows an import refused (the first 1,000), as CSV: row, idNumber, error, code; in the language of `?lang=` (en, zh-CN), else the administrator’s',
      tags,
      access: { kind: 'session' },
      params: idParams,
      resource: 'import',
      responses: { 200: { mediaType: 'text/csv' } },
    },
    async ({ params }, req, res) => {
      const job = visible(req, await ctx.models.ImportJob.findByPk(params.id), 'Import');
      const photos = job.photos === null ? null : (JSON.parse(job.photos) as ImportPhotosReport);
      await exportImportErrors(
        res,
        job.id,
        { refused: JSON.parse(job.errors) as RowError[], withoutPhoto: photos?.withoutPhoto ?? [] },
        exportLocale(req),
      );
    },
  );
}

function registerExports(api: Api, ctx: AppContext): void {
  api.add(
    {
      method: 'get',
      path: '/exports/people.csv',
      summary:
        'People as CSV (cells that would start a spreadsheet formula are neutralized); across all organizations, an `organization` column first',
      tags,
      access: { kind: 'session', minRole: 'admin' },
      responses: { 200: { mediaType: 'text/csv' } },
    },
    async (_input, req, res) => {
      await ctx.audit.record({
        action: 'person.export',
        ...auditActor(req),
        summary: 'people exported as CSV',
        message: { code: 'people_exported', params: {} },
      });
      await exportPeople(ctx, req, res);
    },
  );
}
