import { createHash } from 'node:crypto';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { handoverReport } from '@svc/shared';
import { LAYERS } from './acceptance/layers.js';
import { SessionStore } from './acceptance/session-store.js';
import { createTerminalClient } from './clients/terminal-client.js';
import { closedPort } from '../testing/central-process.js';
import {
  heardTerminal,
  heartbeatBody,
  startCentralStub,
  STUB_CSRF_TOKEN,
  STUB_SESSION,
  STUB_USER,
  type StubAnswer,
} from '../testing/central-stub.js';
import { FakeClock } from '../testing/fake-clock.js';
import { Workbench } from './workbench.js';

/** Heard just now, from the discovery port (not the fixed past of `heardTerminal`). */
const heardNow = () => {
  const now = new Date().toISOString();
  return { sourcePort: 20785, firstSeen: now, lastSeen: now };
};

const invalidCredentials = {
  status: 401,
  body: { error: { code: 'invalid_credentials', message: 'Wrong username or password.' } },
};

/** A central service stand-in: heartbeat (healthy or not), sign-in, and the report upload. */
async function stubCentral() {
  const state = { healthy: true, down: false, uploads: [] as string[] };
  const stub = await startCentralStub(({ url, body }): StubAnswer | 'drop' | undefined => {
    // Down: the connection drops without an answer, as a stopped service behind a proxy does.
    if (state.down) return 'drop';
    if (url === '/api/heartbeat') {
      return { status: state.healthy ? 200 : 503, body: heartbeatBody(state.healthy) };
    }
    if (url === '/api/auth/login' && body.includes('wrong')) return invalidCredentials;
    if (url === '/api/auth/login' && body.includes('needs-code') && !body.includes('"code"')) {
      return {
        status: 401,
        body: { error: { code: 'two_factor_required', message: 'A two-factor code is required.' } },
      };
    }
    if (url === '/api/auth/me') return { status: 200, body: { user: STUB_USER } };
    if (url === '/api/auth/password')
      return body.includes('wrong') ? invalidCredentials : { status: 204 };
    if (url === '/api/acceptance/reports') {
      const report = (JSON.parse(body) as { report: string }).report;
      state.uploads.push(report);
      return {
        status: 201,
        body: {
          sha256: createHash('sha256').update(report).digest('hex'),
          recordedAt: '2026-11-28T04:00:00.000Z',
          recordedBy: 'tess',
          title: 't',
          layers: 8,
          passed: 1,
          created: true,
        },
      };
    }
    return undefined;
  });
  return { ...stub, state };
}

describe('the acceptance session', () => {
  let dir: string;
  let central: Awaited<ReturnType<typeof stubCentral>>;
  let url: string;
  beforeAll(async () => {
    central = await stubCentral();
    url = central.url;
  });
  afterAll(() => central.close());
  beforeEach(() => {
    dir = mkdtempSync(path.join(os.tmpdir(), 'svc-session-'));
    central.state.healthy = true;
    central.state.down = false;
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  const bench = () =>
    new Workbench({
      clock: new FakeClock(),
      terminalClient: createTerminalClient(),
      terminals: () => [],
      release: '0.1.0',
      store: new SessionStore(dir),
    });

  it('asks before a report with layers never run, and names them in it', async () => {
    const wb = bench();
    await wb.setCentral(url);
    await wb.runLayer('central', {});
    await expect(wb.finish({ technician: 'Tess', site: 'North' })).rejects.toThrow(
      /never run: Services, Web site, Data/,
    );
    const state = await wb.finish({ technician: 'Tess', site: 'North', withLayersNotRun: true });
    expect(state.report?.summary.notRun).toHaveLength(7);
    expect(state.report?.summary.passed).toBe(1);
    const json = handoverReport.parse(
      JSON.parse(Buffer.from((await wb.reportFile('json')).base64, 'base64').toString()),
    );
    expect(json.summary.notRun).toContain('Recognition loop');
  });

  it('names each download after the site, date, verdict, digest and language', async () => {
    const wb = bench();
    await wb.setCentral(url);
    await wb.runLayer('central', {});
    const state = await wb.finish({
      technician: 'Tess',
      site: 'North gate / 北门',
      withLayersNotRun: true,
    });
    const short = state.report!.sha256.slice(0, 8);
    const date = state.report!.createdAt.slice(0, 10);
    const base = `svc-handover-North-gate-北门-${date}-not-accepted-${short}`;
    expect((await wb.reportFile('json')).filename).toBe(`${base}.json`);
    expect((await wb.reportFile('html', 'zh-CN')).filename).toBe(`${base}-zh-CN.html`);
    expect((await wb.reportFile('pdf', 'en')).filename).toBe(`${base}-en.pdf`);
  });

  it('outdates the report on a change after Finish; a failed re-run drops the hand confirmation', async () => {
    const wb = bench();
    await wb.setCentral(url);
    await wb.runLayer('services', {});
    await wb.confirmLayer('services', { who: 'Tess', note: 'status.sh all up' });
    expect(wb.acceptance().layers[0]?.status).toBe('passed');
    await wb.finish({ technician: 'Tess', site: 'North', withLayersNotRun: true });
    await expect(wb.reportFile('pdf')).resolves.toMatchObject({ mime: 'application/pdf' });
    central.state.healthy = false;
    const after = await wb.runLayer('services', {});
    expect(after.layers[0]).toMatchObject({ status: 'failed', manual: null });
    expect(after.report?.outdated).toBe('Services was run again after Finish');
    for (const format of ['json', 'html', 'pdf'] as const) {
      await expect(wb.reportFile(format)).rejects.toThrow(/outdated/);
    }
    const again = await wb.finish({ technician: 'Tess', site: 'North', withLayersNotRun: true });
    expect(again.report).toMatchObject({ outdated: null, summary: { passed: 0, failed: 1 } });
    expect(again.report?.summary.failedTitles).toEqual(['Services']);
  });

  it('keeps the session on disk without credentials, and resumes it after a restart', async () => {
    const password = 'Str0ng pass for gate';
    const first = bench();
    await first.setCentral(url);
    await first.signIn('tess', password);
    await first.runLayer('services', {});
    await first.confirmLayer('services', { who: 'Tess', note: `typed ${password} by mistake` });
    await first.push({ ids: [], centralUrl: url, keys: { 'ENR-X': 'terminal-key-123' } });
    const done = await first.finish({ technician: 'Tess', site: 'North', withLayersNotRun: true });
    expect(done.report?.recorded?.sha256).toBe(done.report?.sha256);
    expect(central.state.uploads.at(-1)).not.toContain(password);

    const files = readdirSync(path.join(dir, 'sites'));
    const onDisk = files.map((f) => readFileSync(path.join(dir, 'sites', f), 'utf8')).join('');
    for (const secret of [password, STUB_SESSION, STUB_CSRF_TOKEN]) {
      expect(onDisk).not.toContain(secret);
    }

    const second = bench();
    await second.resume();
    expect((await second.centralState()).url).toBe(url);
    expect((await second.centralState()).user).toBeNull(); // the sign-in is not kept
    const resumed = second.acceptance();
    expect(resumed.layers[0]).toMatchObject({ status: 'passed', manual: { who: 'Tess' } });
    expect(resumed.report).toEqual(done.report);
    await expect(second.reportFile('json')).resolves.toMatchObject({ mime: 'application/json' });
  });

  it('keeps the last site when a mistyped central address is tried, across a restart', async () => {
    const first = bench();
    await first.setCentral(url);
    await first.runLayer('central', {});
    // A typo: nothing answers there. It must neither get a site file nor become "the last".
    await first.setCentral('http://127.0.0.1:1');
    expect(first.acceptance().layers.every((l) => l.ranAt === null)).toBe(true);
    expect(readdirSync(path.join(dir, 'sites'))).toHaveLength(1);

    const second = bench();
    await second.resume();
    expect((await second.centralState()).url).toBe(url);
    expect(second.acceptance().layers.find((l) => l.id === 'central')).toMatchObject({
      status: 'passed',
    });
  });

  it('never writes an empty session over a site file, even one it could not read', async () => {
    const first = bench();
    await first.setCentral(url);
    await first.runLayer('central', {});
    const [file] = readdirSync(path.join(dir, 'sites'));
    const sitePath = path.join(dir, 'sites', file!);
    const kept = readFileSync(sitePath, 'utf8');

    // Opening the site again (a restart, another window) leaves the file as it was.
    const again = bench();
    await again.setCentral(url);
    expect(readFileSync(sitePath, 'utf8')).toBe(kept);

    // A file this release cannot read (a newer format, a disk error) is set aside, not lost.
    const unreadable = kept.replace('"v":1', '"v":99');
    writeFileSync(sitePath, unreadable);
    const third = bench();
    await third.setCentral(url);
    expect(readFileSync(sitePath, 'utf8')).toBe(unreadable);
    await third.runLayer('web', {});
    const aside = readdirSync(path.join(dir, 'sites')).filter((f) => f !== file);
    expect(aside).toHaveLength(1);
    expect(readFileSync(path.join(dir, 'sites', aside[0]!), 'utf8')).toBe(unreadable);
  });

  it('refuses a hand confirmation over a failed layer, or one never run', async () => {
    const wb = bench();
    await wb.setCentral(url);
    await expect(wb.confirmLayer('services', { who: 'Tess', note: '' })).rejects.toThrow(
      /run the check first/i,
    );
    central.state.healthy = false;
    await wb.runLayer('services', {});
    await expect(wb.confirmLayer('services', { who: 'Tess', note: 'looks fine' })).rejects.toThrow(
      /failed.*cannot make it pass/i,
    );
    expect(wb.acceptance().layers[0]).toMatchObject({ status: 'failed', manual: null });
    await expect(wb.confirmLayer('central', { who: 'Tess', note: '' })).rejects.toThrow(
      /nothing to confirm by hand/i,
    );
  });

  it('says in words what to check for an address where nothing, or something else, answers', async () => {
    const wb = bench();
    const port = await closedPort();
    const none = await wb.setCentral(`http://127.0.0.1:${port}`);
    expect(none.error).toBe(`nothing answers at 127.0.0.1:${port} (connection refused)`);
    expect(none.advice).toMatch(/^Check the address and port .*the central service runs/);
    // The words carry no raw code; the code travels beside them, for the screens to word.
    expect(`${none.error} ${none.advice}`).not.toMatch(/HTTP|ECONN|fetch failed|\/api\//);
    expect(none.reach).toEqual({
      code: 'nothing_answers',
      params: { host: `127.0.0.1:${port}`, cause: 'ECONNREFUSED' },
    });

    const other = createServer((_req, res) => {
      res.writeHead(404, { 'content-type': 'text/html' });
      res.end('<h1>router login</h1>');
    });
    await new Promise<void>((resolve) => other.listen(0, '127.0.0.1', resolve));
    const host = `127.0.0.1:${(other.address() as AddressInfo).port}`;
    try {
      const state = await wb.setCentral(`http://${host}`);
      expect(state.error).toBe(`${host} answers HTTP 404, not as an svc central service`);
      expect(state.reach).toMatchObject({ code: 'not_central', params: { host, status: 404 } });
      expect(state.advice).toMatch(/Check the address and port/);
    } finally {
      await new Promise((resolve) => other.close(resolve));
    }
  });

  it('keeps the reason of a refused sign-in for the live header, until a sign-in succeeds', async () => {
    const wb = bench();
    await wb.setCentral(url);
    await expect(wb.signIn('tess', 'wrong password')).rejects.toThrow(
      /^the user name or password is wrong$/,
    );
    expect((await wb.centralState()).refusal?.reason).toBe('the user name or password is wrong');
    await wb.signIn('tess', 'Str0ng pass for gate');
    expect((await wb.centralState()).refusal).toBeNull();
  });

  it('says the latest truth: a refusal goes once a later call succeeds', async () => {
    const wb = bench();
    await wb.setCentral(url);
    await expect(wb.signIn('tess', 'wrong password')).rejects.toThrow();
    // The password was right this time; the account asks its second factor: not refused.
    const asked = await wb.signIn('tess', 'needs-code Str0ng pass');
    expect(asked.codeRequired).toBe(true);
    expect(asked.refusal).toBeNull();
    await wb.signIn('tess', 'Str0ng pass for gate');
    await expect(wb.changePassword('wrong current', 'N3w pass for gate!')).rejects.toThrow(
      /^the user name or password is wrong$/,
    );
    expect((await wb.centralState()).refusal?.reason).toBe('the user name or password is wrong');
    // The password change that follows succeeds: the header no longer says refused.
    const changed = await wb.changePassword('Str0ng pass for gate', 'N3w pass for gate!');
    expect(changed.refusal).toBeNull();
  });

  it('resumes a session holding a refused push (nothing pushed) after a restart', async () => {
    const first = bench();
    await first.setCentral(url);
    await first.runLayer('central', {});
    const workbenchWithTerminal = new Workbench({
      clock: new FakeClock(),
      terminalClient: createTerminalClient(),
      terminals: () => [heardTerminal('ENR-R', 9, { name: null, ...heardNow() })],
      release: '0.1.0',
      store: new SessionStore(dir),
    });
    await workbenchWithTerminal.setCentral(url);
    // Not signed in: the push stops before the terminal, and is kept as such.
    const [refused] = await workbenchWithTerminal.push({ ids: ['ENR-R'], centralUrl: url });
    expect(refused).toMatchObject({ via: 'none', ok: false, readBack: { skipped: true } });

    const second = bench();
    await second.resume();
    expect(second.pushes()).toEqual([expect.objectContaining({ id: 'ENR-R', via: 'none' })]);
    expect(second.pushes()[0]?.checkedIn.skipped).toBe(true);
    expect(second.acceptance().layers.find((l) => l.id === 'central')?.status).toBe('passed');
  });
  it('outdates the report and fails the terminal layer once a proven terminal announces another central', async () => {
    const terminal = heardTerminal('ENR-P', 9, { name: null, central: url, ...heardNow() });
    const at = new Date().toISOString();
    await new SessionStore(dir).save({
      centralUrl: url,
      layers: LAYERS.map((l) => ({
        id: l.id,
        title: l.title,
        manualPrompt: l.manual,
        status: 'pending' as const,
        evidence: [],
        manual: null,
        ranAt: null,
        error: null,
      })),
      pushes: [
        {
          id: 'ENR-P',
          kind: 'enrollment',
          address: '127.0.0.1',
          port: 9,
          centralUrl: url,
          panelUrl: null,
          via: 'central',
          pushedAt: at,
          saved: { ok: true, detail: 'saved' },
          readBack: { ok: true, detail: 'read', config: null },
          checkedIn: { ok: true, detail: 'in', at },
          ok: true,
        },
      ],
      report: null,
    });
    const wb = new Workbench({
      clock: new FakeClock(),
      terminalClient: createTerminalClient(),
      terminals: () => [terminal],
      release: '0.1.0',
      store: new SessionStore(dir),
    });
    await wb.setCentral(url);
    await wb.runLayer('terminals', {});
    const layer = () => wb.acceptance().layers.find((l) => l.id === 'terminals');
    expect(layer()?.status).toBe('passed');
    await wb.finish({ technician: 'Tess', site: 'North', withLayersNotRun: true });
    expect(wb.acceptance().report?.outdated).toBeNull();

    terminal.central = 'http://10.9.9.9:8080';
    const after = wb.acceptance();
    expect(after.layers.find((l) => l.id === 'terminals')).toMatchObject({
      status: 'failed',
      evidence: [expect.objectContaining({ label: 'ENR-P', ok: false })],
    });
    expect(after.report?.outdated).toMatch(/ENR-P.*another central address/);
    await expect(wb.reportFile('json')).rejects.toThrow(/outdated/);
    // Kept across a restart.
    await wb.reviewProofs();
    const again = bench();
    await again.resume();
    expect(again.acceptance().report?.outdated).toMatch(/ENR-P/);
  });

  it('says truly why a report is not recorded, and records it once the central service answers', async () => {
    const wb = bench();
    await wb.setCentral(url);
    await wb.runLayer('central', {});
    // Not signed in, the central service answering: that is the reason.
    let state = await wb.finish({ technician: 'Tess', site: 'North', withLayersNotRun: true });
    expect(state.report?.recordError).toMatch(/^not signed in at the central service/);
    // Signed in, then the central service stops answering before Finish.
    await wb.signIn('tess', 'right password');
    central.state.down = true;
    state = await wb.finish({ technician: 'Tess', site: 'North', withLayersNotRun: true });
    expect(state.report?.recorded).toBeNull();
    expect(state.report?.recordError).toMatch(/^the central service at .* is not answering/);
    const uploads = central.state.uploads.length;
    // It answers again: the same report is recorded, under the digest of the file.
    central.state.down = false;
    state = await wb.recordReport();
    expect(state.report?.recorded?.sha256).toBe(state.report?.sha256);
    expect(central.state.uploads).toHaveLength(uploads + 1);
    // Recorded once: asking again uploads nothing more.
    await wb.recordReport();
    expect(central.state.uploads).toHaveLength(uploads + 1);
    const html = Buffer.from((await wb.reportFile('html')).base64, 'base64').toString();
    expect(html).toContain(`recorded at the central service as ${state.report?.sha256}`);
  });
});
