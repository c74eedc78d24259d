/* eslint-disable @typescript-eslint/require-await -- stand-ins for the central client's async methods */
import type { CentralClient } from '../clients/central-client.js';
import type { PushResult } from '../push/push.js';
import type { TerminalEntry } from '../terminal-directory.js';
import { setLanguage } from '../i18n.js';
import { runLayer, type RunnerDeps } from './runner.js';

type Task = Awaited<ReturnType<CentralClient['personTasks']>>[number];

const task = (over: Partial<Task>): Task => ({
  id: 't1',
  personId: 'p1',
  deviceId: 'd1',
  sn: 'SN-1',
  personName: null,
  action: 'delete',
  lane: 'priority',
  state: 'succeeded',
  version: 1,
  photoSha256: null,
  resultVersion: null,
  resultPhotoSha256: null,
  attempts: 0,
  nextAttemptAt: '2026-11-28T04:00:00.000Z',
  error: null,
  updatedAt: '2026-11-28T04:00:01.000Z',
  finishedAt: '2026-11-28T04:00:01.000Z',
  ...over,
});

/** A central service where device SN-1 takes the test person; `deletes` is what it says after. */
function syncDeps(deletes: Task[], created: { name: string }[] = []): RunnerDeps {
  const sha = 'a'.repeat(64);
  const central = {
    spaces: async () => ({ value: { items: [{ id: 's1', name: 'Gate A' }] } }),
    createPerson: async (p: { name: string }) => {
      created.push(p);
      return { value: { id: 'p1', name: p.name } };
    },
    putPhoto: async () => sha,
    personSync: async () => ({
      value: {
        items: [
          {
            id: 't0',
            deviceId: 'd1',
            sn: 'SN-1',
            action: 'put',
            state: 'succeeded',
            version: 1,
            photoSha256: sha,
            resultVersion: 1,
            resultPhotoSha256: sha,
            attempts: 0,
            nextAttemptAt: '2026-11-28T04:00:00.000Z',
            updatedAt: '2026-11-28T04:00:00.000Z',
          },
        ],
      },
    }),
    deletePerson: async () => undefined,
    personExists: async () => false,
    personTasks: async () => deletes,
  } as unknown as CentralClient;
  let now = 0;
  return {
    central,
    siteUrl: 'http://127.0.0.1:1',
    terminals: () => [],
    pushes: () => [],
    terminalClient: {} as RunnerDeps['terminalClient'],
    sleep: (ms) => {
      now += ms;
      return Promise.resolve();
    },
    now: () => now,
    waitMs: 2_000,
  };
}

describe('the synchronization layer', () => {
  afterEach(() => setLanguage('en'));

  it('proves each device that held the test person dropped it, and fails while one holds it', async () => {
    const passed = await runLayer(syncDeps([task({})]), 'sync', {
      space: 'Gate A',
      photoBase64: 'AAAA',
    });
    expect(passed.at(-1)).toMatchObject({
      label: 'test person dropped by device SN-1',
      ok: true,
    });
    expect(passed.at(-1)?.value).toMatch(/^the device acknowledged dropping it at /);
    expect(passed.every((e) => e.ok)).toBe(true);

    const pending = task({
      state: 'pending',
      attempts: 2,
      error: { code: 'device_unreachable', message: 'timed out' },
    });
    const failed = await runLayer(syncDeps([pending]), 'sync', {
      space: 'Gate A',
      photoBase64: 'AAAA',
    });
    expect(failed.at(-1)).toMatchObject({ label: 'test person dropped by device SN-1', ok: false });
    expect(failed.at(-1)?.value).toContain('the device still holds it');
    expect(failed.at(-1)?.value).toContain('timed out');

    const none = await runLayer(syncDeps([]), 'sync', { space: 'Gate A', photoBase64: 'AAAA' });
    expect(none.at(-1)).toMatchObject({ ok: false });
    expect(none.at(-1)?.value).toContain('no erasure task');
  });

  it('a test person left by a check stopped midway is erased first, and the record kept', async () => {
    const deps = syncDeps([task({})]);
    const atCentral = new Set(['left-1']);
    const erased: string[] = [];
    let kept: string[] = ['left-1'];
    const recorded: string[][] = [];
    deps.central = Object.assign(deps.central, {
      personExists: async (id: string) => atCentral.has(id),
      deletePerson: async (id: string) => {
        erased.push(id);
        atCentral.delete(id);
      },
    });
    deps.testPeople = {
      list: async () => kept,
      set: async (ids) => {
        kept = ids;
        recorded.push(ids);
      },
    };
    const evidence = await runLayer(deps, 'sync', { space: 'Gate A', photoBase64: 'AAAA' });
    expect(evidence[0]).toEqual({
      label: 'test person left by an interrupted check',
      value: 'left-1: erased at central before this check',
      ok: true,
    });
    expect(erased).toEqual(['left-1', 'p1']);
    // Written before the check went on (p1), then cleared once p1 was seen erased.
    expect(recorded).toEqual([[], ['p1'], []]);
    expect(evidence.every((e) => e.ok)).toBe(true);

    // One that cannot be erased fails the layer before a new test person is made.
    kept = ['stuck'];
    atCentral.add('stuck');
    deps.central = Object.assign(deps.central, {
      deletePerson: async () => {
        throw new Error('403 forbidden');
      },
    });
    const stuck = await runLayer(deps, 'sync', { space: 'Gate A', photoBase64: 'AAAA' });
    expect(stuck).toHaveLength(1);
    expect(stuck[0]).toMatchObject({
      ok: false,
      label: 'test person left by an interrupted check',
    });
    expect(stuck[0]?.value).toContain('stuck: still at central');
    expect(kept).toEqual(['stuck']);
  });

  it('names the test person in the technician’s language', async () => {
    await setLanguage('zh-CN');
    const created: { name: string }[] = [];
    await runLayer(syncDeps([task({})], created), 'sync', { space: 'Gate A', photoBase64: 'AAAA' });
    expect(created[0]?.name).toMatch(/^验收测试 \d{14}$/);
  });
});

const terminal = (id: string, address: string): TerminalEntry => ({
  id,
  kind: 'enrollment',
  name: null,
  model: null,
  version: null,
  address,
  port: 8182,
  sourcePort: 20785,
  configUrl: `http://${address}:8182/api/config`,
  central: 'http://192.168.1.10:8000',
  firstSeen: '2026-11-28T03:00:00.000Z',
  lastSeen: '2026-11-28T03:10:00.000Z',
  announces: 3,
  conflict: null,
});

const proof = (id: string, address: string, ok: boolean): PushResult => ({
  id,
  kind: 'enrollment',
  address,
  port: 8182,
  centralUrl: 'http://192.168.1.10:8000',
  panelUrl: null,
  via: 'central',
  pushedAt: '2026-11-28T03:05:00.000Z',
  saved: { ok: true, detail: 'saved' },
  readBack: { ok: true, detail: 'read', config: null },
  checkedIn: ok
    ? { ok: true, detail: 'in', at: '2026-11-28T03:05:02.000Z' }
    : { ok: false, detail: 'no', at: null },
  ok,
});

/** T-1 online and proven; T-2 offline, proven before; T-3 offline, never pushed; T-4 only pushed (failed). */
function fleet(): RunnerDeps {
  const central = {
    baseUrl: 'http://192.168.1.10:8000',
    nodes: async () => ({
      value: [{ id: 'T-1', address: '192.168.1.21', port: 8182 }],
    }),
    onlineCount: async () => ({ value: { count: 0 } }),
  } as unknown as CentralClient;
  return {
    central,
    siteUrl: 'http://127.0.0.1:1',
    terminals: () => [terminal('T-1', '192.168.1.21')],
    offline: () => [terminal('T-2', '192.168.1.22'), terminal('T-3', '192.168.1.23')],
    pushes: () => [
      proof('T-1', '192.168.1.21', true),
      proof('T-2', '192.168.1.22', true),
      proof('T-4', '192.168.1.24', false),
    ],
    terminalClient: {} as RunnerDeps['terminalClient'],
    sleep: () => Promise.resolve(),
    now: () => 0,
  };
}

describe('terminals gone offline stay in the acceptance', () => {
  it('terminal configuration: offline and proven warns, never proven fails, each named', async () => {
    const evidence = await runLayer(fleet(), 'terminals', {});
    const by = (id: string) => evidence.find((e) => e.label === id);
    expect(by('T-1')).toMatchObject({ ok: true });
    expect(by('T-1')?.warning).toBeUndefined();
    expect(by('T-2')).toMatchObject({ ok: true, warning: true });
    expect(by('T-2')?.value).toMatch(
      /^offline \(last heard at .* from 192\.168\.1\.22\); its push/,
    );
    expect(by('T-3')).toMatchObject({ ok: false });
    expect(by('T-3')?.value).toMatch(/never proven/);
    expect(by('T-4')).toMatchObject({ ok: false });
    expect(by('T-4')?.value).toMatch(/not heard since this console started.*192\.168\.1\.24/);
  });

  it('discovery: an offline terminal is named, not silently left out', async () => {
    const evidence = await runLayer(fleet(), 'discovery', {});
    const by = (id: string) => evidence.find((e) => e.label === `${id} at central`);
    expect(by('T-1')).toMatchObject({ ok: true, value: '192.168.1.21:8182' });
    expect(by('T-2')).toMatchObject({ ok: true, warning: true });
    expect(by('T-3')).toMatchObject({ ok: false });
    expect(by('T-4')).toMatchObject({ ok: false });
  });
});
