import { ManualClock } from '../../platform/clock.js';
import { createDeviceClient } from '../../devices/client.js';
import { signedIn } from '../../test/admins.js';
import { DIALECTS } from '../../test/dialects.js';
import { suiteServer } from '../../test/suite.js';
import type { TestServer } from '../../test/harness.js';
import { MAX_ATTEMPTS } from '../knobs.js';
import { addPerson, beat, held, simDoor, type SimDevice } from '../../test/sync-setup.js';
import { SyncWorker } from '../worker/worker.js';

/** The push timeout of this suite's worker; the slow device answers well after it. */
const PUSH_TIMEOUT_MS = 300;
const BACKOFF_MAX_MS = 5 * 60_000;

const FAULTS = [
  {
    name: 'answers 500',
    faults: { status500: true },
    code: 'device_http_status',
    reason: /device ROBUST-\S+ answered HTTP 500 \(internal_error\)/,
  },
  {
    name: 'answers after the push timeout',
    faults: { delayMs: 3_000 },
    code: 'device_unreachable',
    reason: /no answer from device ROBUST-\S+ at 127\.0\.0\.1:\d+ within 0\.3 s/,
  },
  {
    name: 'drops the connection',
    faults: { dropRate: 1 },
    code: 'device_unreachable',
    reason: /(connection reset|connection closed without an answer) at device ROBUST-\S+/,
  },
] as const;

describe.each(DIALECTS)('a misbehaving device (%s)', (dialect) => {
  let server: TestServer;
  let worker: SyncWorker;
  const devices: SimDevice[] = [];

  const clock = new ManualClock();
  afterAll(async () => {
    for (const d of devices) await d.sim.stop();
  });

  const suite = suiteServer(dialect, { clock, env: { HEARTBEAT_TIMEOUT: '30' } });
  beforeAll(() => {
    server = suite.server;
    worker = new SyncWorker(server.ctx, {
      client: createDeviceClient({ timeoutMs: PUSH_TIMEOUT_MS }),
    });
  });

  const taskOf = async (personId: string, d: SimDevice) =>
    (await server.ctx.models.SyncTask.findOne({ where: { personId, deviceId: d.id } }))!;
  /** Moves past the longest backoff, keeps the device online, and runs until idle. */
  const nextRound = async (d: SimDevice) => {
    clock.advance(BACKOFF_MAX_MS + 1_000);
    await beat(d);
    await worker.runUntilIdle();
  };

  test.each(FAULTS)(
    'a device that $name: retried with backoff, then success once healthy, or failed with a readable reason',
    async ({ name, faults, code, reason }) => {
      // Each case gets a space and device of its own; the clock has moved past the session.
      const admin = await signedIn(server, 'admin');
      // Names are unique under one parent: each case its own.
      const { d, spaceId, org } = await simDoor(server, admin, `Faulty site: ${name}`, {
        devices,
      });
      await d.sim.setFaults(faults);
      const healing = await addPerson(server, org, [spaceId]);

      await worker.runUntilIdle();
      let task = await taskOf(healing.id, d);
      expect([task.state, task.attempts, task.errorCode]).toEqual(['pending', 1, code]);
      expect(task.errorMessage).toMatch(/^Attempt 1 of 8 failed, trying again: /);
      expect(task.errorMessage).toMatch(reason);
      // Backoff: not due again until later, so a run now leaves it alone.
      expect(task.nextAttemptAt.getTime()).toBeGreaterThan(clock.now().getTime());
      expect((await worker.runOnce()).pushed).toBe(0);

      await nextRound(d);
      task = await taskOf(healing.id, d);
      expect([task.state, task.attempts]).toEqual(['pending', 2]);

      await d.sim.setFaults({});
      await nextRound(d);
      task = await taskOf(healing.id, d);
      expect([task.state, task.errorCode, task.errorMessage]).toEqual(['succeeded', null, null]);
      expect(held(d)[healing.id]).toEqual({
        version: healing.version,
        photoSha256: healing.photoSha256,
      });

      // Faulty for good: after the last attempt the task is failed, with the reason in words.
      await d.sim.setFaults(faults);
      const doomed = await addPerson(server, org, [spaceId]);
      for (let round = 0; round < MAX_ATTEMPTS + 2; round++) await nextRound(d);
      task = await taskOf(doomed.id, d);
      expect([task.state, task.attempts, task.errorCode]).toEqual(['failed', MAX_ATTEMPTS, code]);
      expect(task.errorMessage).toMatch(new RegExp(`^Gave up after ${MAX_ATTEMPTS} attempts: `));
      expect(task.errorMessage).toMatch(reason);
      expect(task.finishedAt).not.toBeNull();
      // A failed task waits for the retry API: more runs do not try it again.
      await nextRound(d);
      expect((await taskOf(doomed.id, d)).attempts).toBe(MAX_ATTEMPTS);
      await d.sim.setFaults({});
    },
    60_000,
  );

  test('a device that stops answering is not handed its whole queue: the untried wait, attempts unchanged', async () => {
    const admin = await signedIn(server, 'admin');
    const { d, spaceId, org } = await simDoor(server, admin, 'Faulty site, many people', {
      devices,
      beat: false,
    });
    const people = [];
    for (let i = 0; i < 30; i++) people.push(await addPerson(server, org, [spaceId]));
    await beat(d);
    await d.sim.setFaults({ status500: true });
    await worker.runOnce();
    const tasks = await server.ctx.models.SyncTask.findAll({ where: { deviceId: d.id } });
    const tried = tasks.filter((t) => t.attempts === 1);
    // Four pushes in flight per device: eight failures in a row stop the stream, and the
    // pushes already in flight then may add up to three more.
    expect(tried.length).toBeGreaterThanOrEqual(8);
    expect(tried.length).toBeLessThanOrEqual(11);
    expect(tasks.every((t) => t.state === 'pending')).toBe(true);
    expect(tasks.filter((t) => t.attempts === 0).length).toBe(30 - tried.length);

    await d.sim.setFaults({});
    await nextRound(d);
    expect(Object.keys(held(d)).sort()).toEqual(people.map((p) => p.id).sort());
  });
});
