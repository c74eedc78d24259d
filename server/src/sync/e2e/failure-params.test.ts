import { syncTaskList, personSyncOut } from '@svc/shared';
import { ManualClock } from '../../platform/clock.js';
import { createDeviceClient } from '../../devices/client.js';
import { signedIn } from '../../test/admins.js';
import { DIALECTS } from '../../test/dialects.js';
import type { TestServer } from '../../test/harness.js';
import type { TestClient } from '../../test/http-client.js';
import { MAX_ATTEMPTS } from '../knobs.js';
import { addPerson, beat, simDoor, type SimDevice } from '../../test/sync-setup.js';
import { SyncWorker } from '../worker/worker.js';
import { suiteServer } from '../../test/suite.js';

/**
 * Issue 34: a failed push keeps its detail code and values beside the English sentence, so the
 * site words it in the reader's language; a success clears them with the code.
 */
describe.each(DIALECTS)('a sync task failure by code and values (%s)', (dialect) => {
  let server: TestServer;
  let admin: TestClient;
  let worker: SyncWorker;
  const clock = new ManualClock();
  const devices: SimDevice[] = [];

  const suite = suiteServer(dialect, {
    clock,
    env: { HEARTBEAT_TIMEOUT: '30' },
  });
  beforeAll(async () => {
    server = suite.server;
    worker = new SyncWorker(server.ctx, { client: createDeviceClient({ timeoutMs: 2_000 }) });
    admin = await signedIn(server, 'admin');
  });
  afterAll(async () => {
    for (const d of devices) await d.sim.stop();
  });

  const device = (name: string) => simDoor(server, admin, name, { devices });
  const tasksOf = async (d: SimDevice) => {
    const reply = await admin.get(`/api/sync/tasks?deviceId=${d.id}`);
    expect(reply.status).toBe(200);
    return syncTaskList.parse(reply.body).items;
  };

  test('an answer 500: the detail, its values and the attempt; cleared by a success', async () => {
    const { d, spaceId, org } = await device('Params 500');
    await d.sim.setFaults({ status500: true });
    const person = await addPerson(server, org, [spaceId]);
    await worker.runUntilIdle();

    const [task] = await tasksOf(d);
    expect(task!.error).toEqual({
      code: 'device_http_status',
      message: `Attempt 1 of ${MAX_ATTEMPTS} failed, trying again: device ${d.sn} answered HTTP 500 (internal_error)`,
      params: {
        detail: 'http_status_code',
        sn: d.sn,
        status: 500,
        deviceCode: 'internal_error',
        attempt: 1,
        of: MAX_ATTEMPTS,
      },
    });
    // The person's page reads the same.
    const mine = personSyncOut.parse((await admin.get(`/api/people/${person.id}/sync`)).body);
    expect(mine.items[0]!.error).toEqual(task!.error);

    await d.sim.setFaults({});
    clock.advance(10 * 60_000);
    await beat(d);
    await worker.runUntilIdle();
    const row = await server.ctx.models.SyncTask.findByPk(task!.id);
    expect([row!.state, row!.errorCode, row!.errorParams]).toEqual(['succeeded', null, null]);
  });

  test('an oversized answer and a redirect are worded by their own codes', async () => {
    const { d, spaceId, org } = await device('Params odd');
    await d.sim.setFaults({ answerBytes: 4 * 1024 * 1024 });
    await addPerson(server, org, [spaceId]);
    await worker.runUntilIdle();
    let [task] = await tasksOf(d);
    expect(task!.error?.code).toBe('device_answer_too_large');
    expect(task!.error?.params).toMatchObject({ detail: 'answer_too_large', sn: d.sn });
    expect(task!.error?.params?.kib).toEqual(expect.any(Number));

    await d.sim.setFaults({ redirectTo: 'http://192.0.2.1/elsewhere' });
    await server.ctx.models.SyncTask.update(
      { state: 'pending', nextAttemptAt: clock.now() },
      { where: { id: task!.id } },
    );
    await beat(d);
    await worker.runUntilIdle();
    [task] = await tasksOf(d);
    expect(task!.error?.code).toBe('device_bad_answer');
    expect(task!.error?.params).toEqual({
      detail: 'redirect',
      sn: d.sn,
      host: new URL(d.sim.url).host,
    });
  });
});
