import type { TerminalHandle, TerminalOptions } from '@svc/sim';
import type { ConsoleApi } from '../api.js';
import type { TerminalDirectory } from '../terminal-directory.js';
import {
  centralUnavailable,
  startCentral,
  type CentralProcess,
  testDiscoveryPort,
} from '../../testing/central-process.js';
import { listeningConsole } from '../../testing/console.js';
import { LOOPBACK_BROADCAST, loopbackTerminal } from '../../testing/sim.js';

const skip = centralUnavailable();
const d = skip ? describe.skip : describe;
if (skip) console.warn(`push tests skipped: ${skip}`);

/** Resolves once the console lists every id; driven by announces, not by a fixed wait. */
async function heard(api: ConsoleApi, ids: string[]): Promise<void> {
  const has = (list: { id: string }[]) => ids.every((id) => list.some((t) => t.id === id));
  if (has(await api.listTerminals())) return;
  await new Promise<void>((resolve) => {
    const off = api.onTerminalsChanged((list) => {
      if (has(list)) {
        off();
        resolve();
      }
    });
  });
}

d('push with proof, against the real central service and simulated terminals', () => {
  const discoveryPort = testDiscoveryPort(30000);
  let central: CentralProcess;
  let directory: TerminalDirectory;
  let api: ConsoleApi;
  const terminals: TerminalHandle[] = [];
  const terminal = async (
    id: string,
    kind: 'enrollment' | 'display',
    extra: Partial<TerminalOptions> = {},
  ) => {
    const t = await loopbackTerminal(discoveryPort, id, kind, {
      announceIntervalMs: 1000,
      ...extra,
    });
    terminals.push(t);
    return t;
  };

  beforeAll(async () => {
    central = await startCentral({ discoveryPort });
    ({ directory, api } = await listeningConsole(discoveryPort, {
      probeAddresses: () => [LOOPBACK_BROADCAST],
      checkinTimeoutMs: 8000,
    }));
    await terminal('ENR-P1', 'enrollment');
    await terminal('DSP-P1', 'display');
    await terminal('ENR-KEY', 'enrollment', { managementKey: 'terminal-key-for-this-test' });
    await terminal('ENR-BAD', 'enrollment', { faults: { saveDifferent: true } });
    await heard(api, ['ENR-P1', 'DSP-P1', 'ENR-KEY', 'ENR-BAD']);
  });
  afterAll(async () => {
    for (const t of terminals) await t.stop();
    await directory.close();
    await central.stop();
  });

  it('signed in: saved through central, read back, and checked in after the push', async () => {
    await api.setCentral(central.url);
    const state = await api.signIn(central.username, central.password);
    expect(state.user?.username).toBe('admin');
    // Pushed at once: the console waits (and probes) until the central service lists them.
    const results = await api.push({
      ids: ['ENR-P1', 'DSP-P1'],
      centralUrl: central.url,
      panelUrl: 'http://127.0.0.1:9/panel',
    });
    expect(results.map((r) => [r.id, r.via, r.saved.ok, r.readBack.ok, r.checkedIn.ok])).toEqual([
      ['ENR-P1', 'central', true, true, true],
      ['DSP-P1', 'central', true, true, true],
    ]);
    const display = results.find((r) => r.id === 'DSP-P1');
    expect(display?.readBack.config?.panelUrl).toBe('http://127.0.0.1:9/panel');
    // The panel address goes to displays only.
    expect(results.find((r) => r.id === 'ENR-P1')?.readBack.config?.panelUrl).toBe('');
    for (const r of results) expect(r.checkedIn.at! >= r.pushedAt).toBe(true);
    expect(terminals[0]!.config().centralUrl).toBe(central.url);
  });

  it('a terminal with a key: refused without it; with it, saved through central, read back and checked in', async () => {
    const [without] = await api.push({ ids: ['ENR-KEY'], centralUrl: central.url });
    expect(without?.saved.ok).toBe(false);
    expect(without?.saved.detail).toMatch(/401/);
    const [withKey] = await api.push({
      ids: ['ENR-KEY'],
      centralUrl: central.url,
      keys: { 'ENR-KEY': 'terminal-key-for-this-test' },
    });
    expect(withKey?.via).toBe('central');
    expect(withKey?.saved.ok).toBe(true);
    expect(withKey?.readBack.ok).toBe(true);
    expect(withKey?.checkedIn.ok).toBe(true);
    expect(withKey?.ok).toBe(true);
    expect(JSON.stringify(await api.listPushes())).not.toContain('terminal-key-for-this-test');
  });

  it('signed out: nothing is pushed, and a direct push is labelled as not authorized at central', async () => {
    await api.signOut();
    const before = terminals[0]!.config().updatedAt;
    const [refused] = await api.push({ ids: ['ENR-P1'], centralUrl: central.url });
    expect(refused).toMatchObject({ via: 'none', ok: false, saved: { ok: false } });
    expect(refused?.saved.detail).toContain('not signed in');
    expect(terminals[0]!.config().updatedAt).toBe(before);
    const [direct] = await api.push({ ids: ['ENR-P1'], centralUrl: central.url, direct: true });
    expect(direct?.via).toBe('direct');
    expect(direct?.saved.ok).toBe(true);
    expect(direct?.saved.detail).toContain('not authorized at central');
  });

  it('a terminal that saves another address fails the read-back, naming both addresses', async () => {
    await api.signOut();
    const [bad] = await api.push({ ids: ['ENR-BAD'], centralUrl: central.url, direct: true });
    expect(bad?.saved.ok).toBe(true);
    expect(bad?.readBack.ok).toBe(false);
    expect(bad?.readBack.detail).toContain(`pushed "${central.url}"`);
    expect(bad?.checkedIn.detail).toBe('not tried');
    expect(bad?.ok).toBe(false);
  });
});
