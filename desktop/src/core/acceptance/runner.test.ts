import type { CentralClient } from '../clients/central-client.js';
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
    sleep: async (ms) => void (now += ms),
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

  it('names the test person in the technician’s language', async () => {
    await setLanguage('zh-CN');
    const created: { name: string }[] = [];
    await runLayer(syncDeps([task({})], created), 'sync', { space: 'Gate A', photoBase64: 'AAAA' });
    expect(created[0]?.name).toMatch(/^验收测试 \d{14}$/);
  });
});
