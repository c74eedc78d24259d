import { createHash } from 'node:crypto';
import type { Request } from 'express';
import {
  acceptanceReportOut,
  acceptanceReportRecord,
  acceptanceReportUpload,
  handoverReport,
  reportDigestParams,
  secretShapedTexts,
  type AcceptanceReportRecord,
  type HandoverReport,
} from '@svc/shared';
import type { AppContext } from '../platform/context.js';
import type { Api } from '../platform/http/api.js';
import { invalidFields } from '../platform/http/errors.js';
import { auditActor, visible, actingOrganization } from '../platform/http/scope.js';
import { AcceptanceReportStore, type StoredReport } from './store.js';

const tags = ['acceptance'];

/** The report file as the console wrote it, read with the shared schema; 400 otherwise. */
function readReport(text: string): HandoverReport {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    throw invalidFields({ report: { code: 'report_not_json' } }, 'The report file is not JSON.');
  }
  const parsed = handoverReport.safeParse(json);
  if (!parsed.success) {
    // The file is one field of the form: what is wrong inside it says the same thing.
    throw invalidFields(
      { report: { code: 'report_not_report' } },
      'The report file is not a handover report.',
    );
  }
  // A report that would carry a credential is refused, not kept: the console redacts.
  if (secretShapedTexts(parsed.data).length > 0) {
    throw invalidFields(
      { report: { code: 'report_secret' } },
      'The report still holds text shaped like a password, key or token; it was not kept.',
    );
  }
  return parsed.data;
}

const recordOf = (r: StoredReport, created: boolean): AcceptanceReportRecord => ({
  sha256: r.sha256,
  recordedAt: r.recordedAt.toISOString(),
  recordedBy: r.recordedBy,
  title: r.title,
  layers: r.layers,
  passed: r.passed,
  created,
});

function auditSummary(report: HandoverReport, title: string, sha256: string): string {
  const s = report.summary;
  const failed = report.layers.filter((l) => l.status === 'failed').map((l) => l.title);
  return [
    `${title}: ${s.passed}/${s.layers} layers passed`,
    failed.length > 0 ? `failed: ${failed.join(', ')}` : null,
    s.notRun.length > 0 ? `not run: ${s.notRun.join(', ')}` : null,
    `technician ${report.meta.technician}`,
    `report sha256 ${sha256}`,
  ]
    .filter((p) => p !== null)
    .join('; ');
}

/**
 * The handover reports of site acceptances. The console uploads the report file; the central
 * service computes its SHA-256 itself, keeps the file (one record per digest) and notes it in
 * the audit log, so anyone signed in can later fetch it by digest and check a paper copy.
 */
export function registerAcceptanceRoutes(api: Api, ctx: AppContext): void {
  const store = new AcceptanceReportStore(ctx.db.sequelize);
  api.add(
    {
      method: 'post',
      path: '/acceptance/reports',
      summary:
        'Keep a handover report; the service computes its SHA-256 and notes it in the audit log',
      tags,
      access: { kind: 'session', minRole: 'admin' },
      body: acceptanceReportUpload,
      responses: { 201: acceptanceReportRecord, 200: acceptanceReportRecord },
      // The file travels as a JSON string: escaping can make it larger than its bytes.
      bodyLimit: '2mb',
    },
    async ({ body }, req: Request, res) => {
      const report = readReport(body.report);
      const sha256 = createHash('sha256').update(body.report, 'utf8').digest('hex');
      const admin = req.auth!.admin;
      const title = `Acceptance of ${report.meta.site}`.slice(0, 200);
      const { created, record } = await store.keep({
        sha256,
        organizationId: actingOrganization(req),
        recordedBy: admin.username,
        recordedAt: ctx.clock.now(),
        title,
        layers: report.summary.layers,
        passed: report.summary.passed,
        report: body.report,
      });
      if (!created) {
        visible(req, record, 'Report'); // kept by another organization: not theirs to see
        res.status(200).json(recordOf(record, false));
        return;
      }
      await ctx.audit.record({
        action: 'acceptance.report',
        ...auditActor(req),
        target: { type: 'acceptance_report', id: sha256 },
        summary: auditSummary(report, title, sha256),
        message: {
          code: 'acceptance_report_kept',
          params: {
            title,
            passed: report.summary.passed,
            layers: report.summary.layers,
            technician: report.meta.technician,
          },
        },
      });
      res.status(201).json(recordOf(record, true));
    },
  );

  api.add(
    {
      method: 'get',
      path: '/acceptance/reports/:sha256',
      summary: 'A kept handover report by its SHA-256: the record and the report file',
      tags,
      access: { kind: 'session' },
      params: reportDigestParams,
      responses: { 200: acceptanceReportOut },
    },
    async ({ params }, req, res) => {
      const found = visible(req, await store.find(params.sha256), 'Report');
      res.json(acceptanceReportOut.parse({ ...recordOf(found, false), report: found.report }));
    },
  );
}
