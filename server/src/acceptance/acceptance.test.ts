import { createHash } from 'node:crypto';
import type { HandoverReport } from '@svc/shared';
import { DIALECTS } from '../test/dialects.js';
import { suiteServer } from '../test/suite.js';
import { TestClient, errorCode } from '../test/http-client.js';
import { signedIn } from '../test/admins.js';
import { createOrganization } from '../test/org-fixtures.js';

/** A device key as the central service issues one: 43 base64url characters. */
const DEVICE_KEY = 'q8Zr2-Vt0YxK_4mN7pLs1Wc9dHf3JbQe6uGa5oRiTnE';

function report(over: { site?: string; note?: string; technician?: string } = {}): string {
  const value: HandoverReport = {
    kind: 'svc-handover-report',
    v: 2,
    meta: {
      release: '0.1.0',
      host: 'laptop-7',
      centralUrl: 'http://10.1.0.2',
      technician: over.technician ?? 'Tess Tech 张',
      site: over.site ?? 'North gate',
      createdAt: '2026-11-28T04:00:00.000Z',
    },
    summary: { layers: 2, passed: 1, failed: 1, pending: 0, notRun: [], warnings: 0 },
    layers: [
      {
        id: 'services',
        title: 'Services',
        status: 'passed',
        ran: true,
        manualPrompt: 'status.sh reports every service up',
        ranAt: '2026-11-28T03:50:00.000Z',
        error: null,
        evidence: [{ label: 'database', value: 'up (sqlite)', ok: true }],
        manual: { who: 'Tess', at: '2026-11-28T03:51:00.000Z', note: over.note ?? 'all up' },
      },
      {
        id: 'data',
        title: 'Data',
        status: 'failed',
        ran: true,
        manualPrompt: null,
        ranAt: '2026-11-28T03:52:00.000Z',
        error: null,
        evidence: [{ label: 'space', value: '"Gate B" not found', ok: false }],
        manual: null,
      },
    ],
  };
  return `${JSON.stringify(value, null, 2)}\n`;
}
const digestOf = (text: string) => createHash('sha256').update(text).digest('hex');

describe.each(DIALECTS)('acceptance reports on %s', (dialect) => {
  const suite = suiteServer(dialect);
  const auditCount = () =>
    suite.server.ctx.models.Audit.count({ where: { action: 'acceptance.report' } });

  test('the service digests and keeps the report once; anyone signed in fetches it by digest', async () => {
    const admin = await signedIn(suite.server, 'admin', 'tech-anna');
    const file = report();
    const before = await auditCount();
    const saved = await admin.post('/api/acceptance/reports', { report: file });
    expect(saved.status).toBe(201);
    expect(saved.body).toMatchObject({
      sha256: digestOf(file),
      recordedBy: 'tech-anna',
      title: 'Acceptance of North gate',
      layers: 2,
      passed: 1,
      created: true,
    });
    // Sent again: the first record stands, nothing new in the audit log.
    const again = await admin.post('/api/acceptance/reports', { report: file });
    expect(again.status).toBe(200);
    expect(again.body).toMatchObject({ sha256: digestOf(file), created: false });
    expect(await auditCount()).toBe(before + 1);

    const audit = await admin.get('/api/audit?pageSize=10&action=acceptance.report');
    const entry = (audit.body as { items: Record<string, unknown>[] }).items[0];
    expect(entry).toMatchObject({
      actor: 'tech-anna',
      outcome: 'success',
      target: { type: 'acceptance_report', id: digestOf(file) },
    });
    expect(entry?.summary).toContain('Acceptance of North gate: 1/2 layers passed; failed: Data');
    expect(entry?.summary).toContain('Tess Tech 张');
    // With a code and values, for the audit page's language (issue 34).
    expect(entry).toMatchObject({
      summaryCode: 'acceptance_report_kept',
      summaryParams: { title: 'Acceptance of North gate', passed: 1, layers: 2 },
    });

    const operator = await signedIn(suite.server, 'operator');
    const fetched = await operator.get(`/api/acceptance/reports/${digestOf(file)}`);
    expect(fetched.status).toBe(200);
    const body = fetched.body as { report: string; sha256: string };
    expect(body.report).toBe(file);
    expect(digestOf(body.report)).toBe(body.sha256);
  });

  test('refuses claims, non-reports, control characters and secrets, and keeps nothing', async () => {
    const admin = await signedIn(suite.server, 'admin');
    const before = await auditCount();
    const refused: [unknown, RegExp][] = [
      // The old claim: a digest and counts, no report.
      [{ sha256: 'ab'.repeat(32), title: 't', layers: 8, passed: 8 }, /not valid/],
      [{ report: 'not json' }, /not JSON/],
      [{ report: JSON.stringify({ kind: 'other' }) }, /not a handover report/],
      [{ report: report({ site: 'North\r\nInjected: yes' }) }, /not a handover report/],
      [{ report: report({ technician: 'Tess\u0007' }) }, /not a handover report/],
      [{ report: report({ note: `key was ${DEVICE_KEY}` }) }, /shaped like a password/],
      [{ report: report({ note: 'password=hunter2hunter2' }) }, /shaped like a password/],
    ];
    for (const [body, message] of refused) {
      const bad = await admin.post('/api/acceptance/reports', body);
      expect(bad.status).toBe(400);
      expect(errorCode(bad)).toBe('invalid_input');
      expect((bad.body as { error: { message: string } }).error.message).toMatch(message);
    }
    // A report whose summary disagrees with its layers is no report either.
    const lying = report().replace('"passed": 1', '"passed": 2');
    expect((await admin.post('/api/acceptance/reports', { report: lying })).status).toBe(400);

    const file = report({ site: 'South gate' });
    const operator = await signedIn(suite.server, 'operator');
    expect((await operator.post('/api/acceptance/reports', { report: file })).status).toBe(403);
    const stranger = new TestClient(suite.server.url);
    expect([401, 403]).toContain(
      (await stranger.post('/api/acceptance/reports', { report: file })).status,
    );
    expect(await auditCount()).toBe(before);
    expect((await admin.get(`/api/acceptance/reports/${digestOf(file)}`)).status).toBe(404);
    expect((await admin.get('/api/acceptance/reports/NOT-A-DIGEST')).status).toBe(400);
  });

  test("another organization's report is not found", async () => {
    const file = report({ site: 'East gate' });
    const own = await signedIn(suite.server, 'admin');
    expect((await own.post('/api/acceptance/reports', { report: file })).status).toBe(201);
    const other = await signedIn(
      suite.server,
      'admin',
      undefined,
      await createOrganization(suite.server, 'Other org'),
    );
    expect((await other.get(`/api/acceptance/reports/${digestOf(file)}`)).status).toBe(404);
    expect((await other.post('/api/acceptance/reports', { report: file })).status).toBe(404);
  });
});
