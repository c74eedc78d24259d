import { execFile } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { handoverReport, secretShapedTexts } from '@svc/shared';
import { LAYERS, maskId, type LayerResult } from '../acceptance/layers.js';
import { reportHtml } from './html.js';
import { reportPdf } from './pdf.js';
import { buildReport, redact, reportJson, resultLine, sha256 } from './report.js';
import { reportWords } from './words.js';

const run = promisify(execFile);

/** A device key as the central service issues one: 32 random bytes, base64url (43 chars). */
const DEVICE_KEY = 'q8Zr2-Vt0YxK_4mN7pLs1Wc9dHf3JbQe6uGa5oRiTnE';
const PASSWORD = 'Gate-Pass 2026!';
const TERMINAL_KEY = 'term1nal-key';

const layers = (over: Partial<LayerResult> = {}): LayerResult[] =>
  LAYERS.map((l) => ({
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
    ...over,
  }));
const meta = {
  release: '0.1.0',
  host: 'laptop-7',
  centralUrl: 'http://192.168.1.10',
  technician: 'Tess Tech 张',
  site: 'North gate — 北门',
  createdAt: '2026-11-22T07:00:00.000Z',
};

describe('handover report', () => {
  it('redacts credentials, values the console handled, 43-character keys and control characters', () => {
    expect(maskId('110101199001011234')).toBe('••••••••••••••1234');
    expect(redact('Bearer abc.def')).toBe('Bearer [redacted]');
    expect(redact('http://u:p@host/')).toBe('http://[redacted]@host/');
    expect(redact(`key ${DEVICE_KEY} here`)).toBe('key [redacted] here');
    expect(redact(`my pw is ${PASSWORD}`, [PASSWORD])).toBe('my pw is [redacted]');
    expect(redact('line one\r\nline two\tend')).toBe('line one line two end');
    // Prose after "key:" is no credential: the word stays (a value after "key=" does not).
    expect(redact('The terminal has a management key: enter it to push (401)')).toBe(
      'The terminal has a management key: enter it to push (401)',
    );
    expect(redact('key: Enter it, or key=enter')).toBe('key: Enter it, or key=[redacted]');
    expect(redact('password: hunter2 then')).toBe('password: [redacted] then');
    // Chinese labels, either colon (outside eyes): the ASCII value goes, Chinese prose stays.
    expect(redact('密码：Winter2026Secret! 已告知')).toBe('密码：[redacted] 已告知');
    expect(redact('口令: abc123, 令牌=t0k3n')).toBe('口令: [redacted], 令牌=[redacted]');
    expect(redact('终端有管理密钥：输入后即可推送')).toBe('终端有管理密钥：输入后即可推送');
    // A right-to-left override would make the note read otherwise in the signed report.
    expect(redact('phone \u202E13812345678 ok')).toBe('phone  13812345678 ok');
    // ID numbers typed anywhere keep their last 4 only; shorter numbers stay.
    expect(redact('checked Li Lei 11010119900307123X at gate')).toBe(
      `checked Li Lei ${maskId('11010119900307123X')} at gate`,
    );
    expect(redact('ID110101199003071234, old 110101900307123, card 6222021234567890123')).toBe(
      `ID${maskId('110101199003071234')}, old ${maskId('110101900307123')}, card ${maskId('6222021234567890123')}`,
    );
    expect(redact('port 8640, 1764300000000 ms, 2026-11-22')).toBe(
      'port 8640, 1764300000000 ms, 2026-11-22',
    );
    // A password the console never handled, typed without a label: any the site accepts has
    // 12 characters or more, so a 12- or 16-character mixed run goes (outside eyes: 16 stayed).
    expect(redact('told them aB3dE5fG7hJ9kL1m today')).toBe('told them [redacted] today');
    expect(redact('new one Xy7pQ2rT9wZ4, ok')).toBe('new one [redacted], ok');
    // Ordinary words and identifiers stay, a mixed one shorter than 12 too.
    expect(redact('the iPhone13Pro at gate B2')).toBe('the iPhone13Pro at gate B2');
    expect(redact('ACC20261128031700 Jane Roe ENR-E2E 2026-11-22T06:30:00.000Z')).toBe(
      'ACC20261128031700 Jane Roe ENR-E2E 2026-11-22T06:30:00.000Z',
    );
    const planted = layers({
      manual: { who: `Ann ${PASSWORD}`, at: '2026-11-22T06:31:00.000Z', note: DEVICE_KEY },
      error: `failed with ${TERMINAL_KEY}`,
    });
    const report = buildReport(
      planted,
      { ...meta, technician: `Tess ${TERMINAL_KEY}`, site: `site ${DEVICE_KEY}` },
      [PASSWORD, TERMINAL_KEY],
    );
    const json = reportJson(report);
    for (const secret of [
      'abcdef0123456789',
      'hunter2',
      't0k3n',
      'AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA',
      '110101199001',
      PASSWORD,
      TERMINAL_KEY,
      DEVICE_KEY,
    ]) {
      expect(json).not.toContain(secret);
    }
    expect(json).toContain('1234');
    // What the central service checks before keeping a report.
    expect(handoverReport.parse(JSON.parse(json))).toEqual(report);
    expect(secretShapedTexts(report)).toEqual([]);
  });

  it('masks an ID number typed into a hand confirmation in the JSON, HTML and PDF source', () => {
    const report = buildReport(
      layers({
        manual: {
          who: 'Ann',
          at: '2026-11-22T06:31:00.000Z',
          note: '身份证 110101199003071234 已核对',
        },
      }),
      meta,
    );
    const json = reportJson(report);
    expect(json).not.toContain('110101199003071234');
    expect(json).toContain('身份证 ••••••••••••••1234 已核对');
    expect(reportHtml(report, sha256(json), reportWords('en'))).not.toContain('199003071234');
  });

  it('says which layers failed, which never ran, and counts warnings apart from ticks', () => {
    const mixed = layers().map((l) =>
      l.id === 'data'
        ? { ...l, status: 'failed' as const, evidence: [{ label: 'space', value: 'x', ok: false }] }
        : l.id === 'recognition'
          ? { ...l, status: 'pending' as const, ranAt: null, evidence: [], manual: null }
          : l.id === 'central'
            ? { ...l, evidence: [{ label: 'warning', value: 'loopback', ok: true, warning: true }] }
            : l,
    );
    const report = buildReport(mixed, meta);
    expect(report.summary).toEqual({
      layers: 8,
      passed: 6,
      failed: 1,
      pending: 1,
      notRun: ['Recognition loop'],
      warnings: 1,
    });
    expect(resultLine(report)).toBe(
      '6/8 layers passed; failed: Data; not run: Recognition loop; 1 warning',
    );
    const html = reportHtml(report, sha256(reportJson(report)));
    expect(html).toContain('⚠ warning');
    expect(html).toContain('not run');
    // The layer's heading says what the console says, never a plain green "passed".
    expect(html).toMatch(/Central service — <span class="warning">passed with a warning<\/span>/);
    expect(html).toMatch(/Data — <span class="failed">FAILED<\/span>/);
  });

  it('HTML keeps ids whole and wraps at spaces: no word broken where it fits', () => {
    const withIds = layers().map((l) =>
      l.id === 'terminals'
        ? {
            ...l,
            evidence: [{ label: 'DSP-CLONE', value: 'ENR-P and DSP-CLONE checked in', ok: true }],
          }
        : l,
    );
    const html = reportHtml(buildReport(withIds, meta), 'ab'.repeat(32));
    expect(html).toContain('<th><span class="id">DSP-CLONE</span></th>');
    expect(html).toContain('<span class="id">ENR-P</span> and <span class="id">DSP-CLONE</span>');
    const css = /<style>([\s\S]*)<\/style>/.exec(html)?.[1] ?? '';
    expect(css).toContain('.id{white-space:nowrap}');
    // Words break only when one is longer than its line (the digest), never anywhere.
    expect(css).toMatch(/body\{[^}]*overflow-wrap:break-word/);
    expect(css).not.toMatch(/body\{[^}]*overflow-wrap:anywhere/);
    // A phone stacks each check's cells instead of squeezing three columns.
    expect(css).toMatch(/@media \(max-width:40em\)\{[^@]*table,tbody,tr,th,td\{display:block\}/);
  });

  it('is the same bytes and digest for the same evidence; HTML is self-contained', () => {
    const a = reportJson(buildReport(layers(), meta));
    const b = reportJson(buildReport(layers(), meta));
    expect(sha256(a)).toBe(sha256(b));
    expect(sha256(a)).toMatch(/^[0-9a-f]{64}$/);
    const report = buildReport(layers(), meta);
    expect(report.summary).toMatchObject({ layers: 8, passed: 8, failed: 0, pending: 0 });
    const html = reportHtml(report, sha256(a));
    expect(html).not.toMatch(/<script|<link|src=|https?:\/\/(?!192\.168\.1\.10)/);
    expect(html).toContain(sha256(a));
    expect(html).toContain('Recognition loop');
  });

  it('PDF: CJK as typed, a title page, page N of M and the digest on every page, signatures', async () => {
    const many = layers().map((l) => ({
      ...l,
      evidence: Array.from({ length: 12 }, (_, i) => ({
        label: `check ${i} — “${l.title}”`,
        value: `evidence line ${i} for ${l.title} … 张三 ${'long text '.repeat(i)}`,
        ok: i !== 3 || l.id !== 'sync',
      })),
    }));
    const report = buildReport(many, meta);
    const digest = sha256(reportJson(report));
    const pdf = await reportPdf(report, digest);
    expect(pdf.subarray(0, 5).toString()).toBe('%PDF-');
    const dir = mkdtempSync(path.join(os.tmpdir(), 'svc-report-'));
    const file = path.join(dir, 'report.pdf');
    writeFileSync(file, pdf);
    const { stdout } = await run('pdftotext', ['-layout', file, '-']);
    const pages = stdout.split('\f').filter((p) => p.trim() !== '');
    expect(pages.length).toBeGreaterThan(2);
    expect(pages[0]).toContain('Tess Tech 张');
    expect(pages[0]).toContain('North gate — 北门');
    expect(pages[0]).toContain('8/8 layers passed');
    pages.forEach((page, i) => {
      expect(page).toContain(`page ${i + 1} of ${pages.length}`);
      expect(page).toContain(digest);
    });
    for (const l of LAYERS) expect(stdout).toContain(`${l.title}: passed`);
    expect(stdout).toMatch(/Check\s+Evidence\s+Result/);
    expect(stdout).toContain('FAILED');
    expect(stdout).toContain('Confirmed by hand by Ann Tech');
    expect(pages.at(-1)).toMatch(/Technician[\s\S]*Site manager/);
    expect(pages.at(-1)).toContain('Signature');
    expect(stdout).not.toContain('hunter2');
    const fonts = (await run('pdffonts', [file])).stdout;
    expect(fonts).toMatch(/NotoSansHans-Regular.*yes\s+yes/);
  });

  it('HTML and PDF in Simplified Chinese: layer titles, statuses, pages; the JSON keeps its keys', async () => {
    const zh = reportWords('zh-CN');
    const mixed = layers().map((l) =>
      l.id === 'recognition'
        ? { ...l, status: 'pending' as const, ranAt: null, evidence: [], manual: null }
        : l,
    );
    const report = buildReport(mixed, { ...meta, technician: '王工程师' });
    const json = reportJson(report);
    // The JSON is for machines: English titles and codes, whatever language was printed.
    expect(json).toContain('"title": "Recognition loop"');
    expect(resultLine(report, zh)).toBe('8 层中 7 层通过；未执行：识别记录闭环');
    const html = reportHtml(report, sha256(json), zh);
    expect(html).toContain('<html lang="zh-CN">');
    expect(html).toContain('svc 验收报告');
    expect(html).toContain('人员同步 — <span class="passed">通过</span>');
    const file = path.join(mkdtempSync(path.join(os.tmpdir(), 'svc-report-zh-')), 'report.pdf');
    const record = {
      recorded: { sha256: sha256(json), at: '2026-11-22T07:00:05.000Z', by: 'tess' },
      recordError: null,
    };
    writeFileSync(file, await reportPdf(report, sha256(json), zh, record));
    const { stdout } = await run('pdftotext', [file, '-']);
    for (const title of ['服务', '网站', '中心服务', '终端发现', '终端配置', '人员同步']) {
      expect(stdout).toContain(`${title}：通过`);
    }
    expect(stdout).toContain('识别记录闭环：未执行');
    expect(stdout).toContain('王工程师');
    // Chinese punctuation in Chinese sentences; the date as people read it, never raw ISO.
    expect(stdout.replace(/\s+/g, '')).toContain('，已记录到中心服务（审计日志），记录编号');
    expect(stdout).toMatch(/2026\/11\/22/);
    expect(stdout).not.toContain('2026-11-22T07:00:00.000Z');
    expect(stdout).toContain('实施人员');
    expect(stdout).toContain('现场负责人');
    expect(stdout).toMatch(/第 1 页，共 \d+ 页/);
    expect(stdout).not.toContain('layers passed');
  });

  it('the signature block follows the result: a failed acceptance is never signed as accepted', async () => {
    const text = async (report: ReturnType<typeof buildReport>, lang: 'en' | 'zh-CN' = 'en') => {
      const file = path.join(mkdtempSync(path.join(os.tmpdir(), 'svc-sign-')), 'r.pdf');
      writeFileSync(file, await reportPdf(report, 'd'.repeat(64), reportWords(lang)));
      return (await run('pdftotext', [file, '-'])).stdout.replace(/\s+/g, ' ');
    };
    const passed = buildReport(layers(), meta);
    const failed = buildReport(
      layers().map((l) => (l.id === 'sync' ? { ...l, status: 'failed' as const } : l)),
      meta,
    );
    const ok = await text(passed);
    expect(ok).toContain('ACCEPTED');
    expect(ok).not.toContain('NOT ACCEPTED');
    expect(ok).toContain('the site is accepted');
    const bad = await text(failed);
    expect(bad).toContain('NOT ACCEPTED');
    expect(bad).not.toContain('the site is accepted');
    expect(bad).toContain('The site is not accepted: failed: Synchronization');
    const html = reportHtml(failed, 'd'.repeat(64));
    expect(html).toContain('NOT ACCEPTED');
    expect(html).toMatch(/Technician[\s\S]*Site manager/);
    const zh = await text(failed, 'zh-CN');
    expect(zh).toContain('验收未通过');
    expect(zh).not.toContain('该现场验收通过');
  });

  it('PDF: marks the font has (⚠ as the signature says), and a table over a page break says whose', async () => {
    const long = layers().map((l) => ({
      ...l,
      manual: l.manual && { who: 'Ann Tech', at: '2026-11-22T06:31:00.000Z', note: '✔ all up' },
      evidence: Array.from({ length: 20 }, (_, i) => ({
        label: `check ${i}`,
        // Rows of several lines: a layer's table goes on over a page break.
        value: `evidence ${i} of ${l.title}${i < 2 ? '' : ' that a site writes out at length'.repeat(6)}`,
        ok: true,
        ...(i === 0 && l.id === 'central' && { warning: true }),
      })),
    }));
    const report = buildReport(long, meta);
    const file = path.join(mkdtempSync(path.join(os.tmpdir(), 'svc-marks-')), 'r.pdf');
    for (const lang of ['en', 'zh-CN'] as const) {
      writeFileSync(file, await reportPdf(report, 'd'.repeat(64), reportWords(lang)));
      const pages = (await run('pdftotext', ['-layout', file, '-'])).stdout.split('\f');
      const all = pages.join('\n');
      if (lang === 'en') {
        // The signature's "marked ⚠ in this report" is true of the PDF as of the HTML.
        expect(all).toContain('marked ⚠ in this report');
        expect(all).toMatch(/check 0\s+evidence 0 of Central service\s+⚠ warning/);
        expect(all).toMatch(/check 1\s+evidence 1 of Central service\s+✓ ok/);
        // A page that starts inside a layer's table names the layer.
        expect(all).toMatch(/^\s*\S.*: passed \(continued\)\s*\n\s*Check\s+Evidence\s+Result/m);
      } else {
        expect(all).toMatch(/：通过（续）\s*\n\s*检查项\s+依据\s+结果/);
      }
      // What the font lacks (✔ ✘) never prints as an empty box: a typed ✔ is a ✓.
      expect(all).not.toMatch(/[✔✘]/);
      expect(all).toContain('✓ all up');
    }
  });

  it('says whether the central service recorded the report, and why not: never a record that was not made', async () => {
    const report = buildReport(layers(), meta);
    const digest = sha256(reportJson(report));
    const notRecorded = { recorded: null, recordError: 'the central service did not answer' };
    const recorded = {
      recorded: { sha256: digest, at: '2026-11-22T07:00:05.000Z', by: 'tess' },
      recordError: null,
    };
    const down = reportHtml(report, digest, reportWords(), notRecorded);
    expect(down).not.toMatch(
      /recorded in the central audit log|recorded at the central service as/,
    );
    expect(down).toContain(
      'NOT recorded at the central service: the central service did not answer',
    );
    expect(reportHtml(report, digest, reportWords(), recorded)).toContain(
      `recorded at the central service as ${digest} (audit log), by tess at`,
    );
    // Unknown: the digest only, no claim either way.
    expect(reportHtml(report, digest)).not.toMatch(/recorded (in|at) the central/i);
    const file = path.join(mkdtempSync(path.join(os.tmpdir(), 'svc-rec-')), 'r.pdf');
    writeFileSync(file, await reportPdf(report, digest, reportWords(), notRecorded));
    const text = (await run('pdftotext', [file, '-'])).stdout.replace(/\s+/g, ' ');
    expect(text).toContain(
      'NOT recorded at the central service: the central service did not answer',
    );
    expect(text).not.toContain('audit log');
  });

  it('a warning makes the verdict ACCEPTED WITH WARNINGS, and each fact says passed, warning or failed', () => {
    const warned = layers().map((l) =>
      l.id === 'discovery'
        ? {
            ...l,
            evidence: [
              {
                label: 'reachable',
                value: 'http://127.0.0.1:8080 (this host only)',
                ok: true,
                warning: true,
              },
              { label: 'ENR-1', value: '127.0.0.1:20786', ok: true },
            ],
          }
        : l,
    );
    const report = buildReport(warned, meta);
    const json = JSON.parse(reportJson(report)) as ReturnType<typeof buildReport>;
    expect(handoverReport.parse(json)).toBeTruthy();
    const facts = json.layers.find((l) => l.id === 'discovery')?.evidence;
    expect(facts?.map((e) => [e.status, e.ok])).toEqual([
      ['warning', true],
      ['passed', true],
    ]);
    // A status that contradicts ok/warning is refused; a report made before status still reads.
    const first = json.layers[0]!;
    const bad = { ...first, evidence: [{ label: 'x', value: 'y', ok: false, status: 'passed' }] };
    expect(
      handoverReport.safeParse({ ...json, layers: [bad, ...json.layers.slice(1)] }).success,
    ).toBe(false);
    const old = { ...first, evidence: [{ label: 'x', value: 'y', ok: true }] };
    expect(
      handoverReport.safeParse({ ...json, layers: [old, ...json.layers.slice(1)] }).success,
    ).toBe(true);

    const html = reportHtml(report, 'd'.repeat(64));
    expect(html).toContain('ACCEPTED WITH WARNINGS (1): 8/8 layers passed; 1 warning');
    expect(html).not.toContain('every layer passed and that the site is accepted');
    expect(html).toContain('with 1 warning (marked ⚠ in this report)');
    const zh = reportHtml(report, 'd'.repeat(64), reportWords('zh-CN'));
    expect(zh).toContain('验收通过（有 1 条警告）');
    expect(zh).not.toContain('我们确认各层检查均已通过，该现场验收通过');
    // Without a warning, the plain verdict.
    expect(reportHtml(buildReport(layers(), meta), 'd'.repeat(64))).toContain(
      '<strong>ACCEPTED: 8/8 layers passed</strong>',
    );
  });

  it('prints dates with the zone at the end, and the HTML fits a phone', () => {
    const at = '2026-11-29T04:37:29.000Z';
    expect(reportWords('zh-CN').when(at)).toMatch(/^2026\/11\/29 \d{2}:\d{2}:29 \S+$/);
    expect(reportWords('en').when(at)).toMatch(/^11\/29\/2026, \d{2}:\d{2}:29 \S+$/);
    const html = reportHtml(buildReport(layers(), meta), 'd'.repeat(64));
    expect(html).toContain('<meta name="viewport" content="width=device-width, initial-scale=1">');
    // The 64-character digest and long evidence break (only where needed) instead of widening
    // the page.
    expect(html).toMatch(/body\{[^}]*overflow-wrap:break-word/);
    expect(html).toMatch(/\.digest\{overflow-wrap:anywhere\}/);
  });

  it('prints "[redacted]" in the print’s language; the JSON keeps its marker', () => {
    const report = buildReport(layers(), meta);
    expect(reportJson(report)).toContain('[redacted]');
    const zh = reportHtml(report, 'd'.repeat(64), reportWords('zh-CN'));
    expect(zh).not.toContain('[redacted]');
    expect(zh).toContain('Authorization: [已隐去] [已隐去]');
    expect(reportHtml(report, 'd'.repeat(64))).toContain('Authorization: [redacted]');
  });
});
