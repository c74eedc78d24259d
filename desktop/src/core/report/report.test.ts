import { execFile } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { LAYERS, maskId, type AcceptanceState } from '../acceptance/layers.js';
import { reportPdf } from './pdf.js';
import { buildReport, redact, reportHtml, reportJson, sha256 } from './report.js';

const run = promisify(execFile);

const state: AcceptanceState = {
  report: null,
  layers: LAYERS.map((l) => ({
    id: l.id,
    title: l.title,
    manualPrompt: l.manual,
    status: 'passed',
    ranAt: '2026-11-22T06:30:00.000Z',
    error: null,
    manual: l.manual
      ? { who: 'Ann Tech', at: '2026-11-22T06:31:00.000Z', note: 'all green' }
      : null,
    evidence: [
      { label: 'person', value: `Jane Roe, ID ${maskId('110101199001011234')}`, ok: true },
      { label: 'header', value: 'Authorization: Bearer abcdef0123456789', ok: true },
      { label: 'login', value: 'password=hunter2hunter2 token: t0k3n', ok: true },
      { label: 'photo', value: 'data ' + 'A'.repeat(200), ok: true },
    ],
  })),
};
const meta = {
  release: '0.1.0',
  host: 'laptop-7',
  centralUrl: 'http://192.168.1.10',
  technician: 'Ann Tech',
  site: 'North gate',
  createdAt: '2026-11-22T07:00:00.000Z',
};

describe('handover report', () => {
  it('redacts credentials and blobs, and masks ID numbers', () => {
    expect(maskId('110101199001011234')).toBe('••••••••••••••1234');
    expect(redact('Bearer abc.def')).toBe('Bearer [redacted]');
    expect(redact('http://u:p@host/')).toBe('http://[redacted]@host/');
    const json = reportJson(buildReport(state, meta));
    for (const secret of [
      'abcdef0123456789',
      'hunter2',
      't0k3n',
      'AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA',
      '110101199001',
    ]) {
      expect(json).not.toContain(secret);
    }
    expect(json).toContain('1234');
  });

  it('is the same bytes and digest for the same evidence; HTML is self-contained', () => {
    const a = reportJson(buildReport(state, meta));
    const b = reportJson(buildReport(state, meta));
    expect(sha256(a)).toBe(sha256(b));
    expect(sha256(a)).toMatch(/^[0-9a-f]{64}$/);
    const report = buildReport(state, meta);
    expect(report.summary).toEqual({ layers: 8, passed: 8, failed: 0, pending: 0 });
    const html = reportHtml(report, sha256(a));
    expect(html).not.toMatch(/<script|<link|src=|https?:\/\/(?!192\.168\.1\.10)/);
    expect(html).toContain(sha256(a));
    expect(html).toContain('Recognition loop');
  });

  it('PDF: pdftotext finds the site, each layer, the evidence and the digest', async () => {
    const report = buildReport(state, meta);
    const digest = sha256(reportJson(report));
    const pdf = await reportPdf(report, digest);
    expect(pdf.subarray(0, 5).toString()).toBe('%PDF-');
    const dir = mkdtempSync(path.join(os.tmpdir(), 'svc-report-'));
    const file = path.join(dir, 'report.pdf');
    writeFileSync(file, pdf);
    const { stdout } = await run('pdftotext', [file, '-']);
    expect(stdout).toContain('North gate');
    for (const l of LAYERS) expect(stdout).toContain(`${l.title}: passed`);
    expect(stdout).toContain('Confirmed by hand by Ann Tech');
    expect(stdout).toContain('1234');
    expect(stdout.replace(/\s/g, '')).toContain(digest);
    expect(stdout).not.toContain('hunter2');
  });
});
