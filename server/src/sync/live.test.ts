import { ManualClock } from '../platform/clock.js';
import { createPerson } from '../people/service.js';
import { signedIn } from '../test/admins.js';
import { DIALECTS, scratchDb, type ScratchDb } from '../test/dialects.js';
import { startTestServer, type TestServer } from '../test/harness.js';
import type { TestClient } from '../test/http-client.js';
import { createOrganization } from '../test/org-fixtures.js';
import type { SyncLiveEvent } from './live.js';
import {
  addPerson,
  beat,
  createSpace,
  organizationOf,
  registerSim,
  type SimDevice,
} from '../test/sync-setup.js';
import { SyncWorker } from './worker/worker.js';
import { openEventStream } from '../test/sse.js';

interface Stream {
  /** Every `event: sync` until the marker event, in order. */
  syncUntilMarker(): Promise<SyncLiveEvent[]>;
  close(): void;
}

async function openStream(server: TestServer, client: TestClient): Promise<Stream> {
  const stream = await openEventStream(server.url, client);
  expect(stream.status).toBe(200);
  const next = () => stream.next();
  expect(await next()).toBe(': connected');
  return {
    async syncUntilMarker() {
      const out: SyncLiveEvent[] = [];
      for (;;) {
        const block = await next();
        if (block.startsWith('event: marker')) return out;
        if (block.startsWith('event: sync\n')) {
          out.push(JSON.parse(block.split('\ndata: ')[1]!) as SyncLiveEvent);
        }
      }
    },
    close: () => stream.close(),
  };
}

describe.each(DIALECTS)('sync state changes on the live stream (%s)', (dialect) => {
  let scratch: ScratchDb;
  let server: TestServer;
  let clock: ManualClock;
  const devices: SimDevice[] = [];
  const streams: Stream[] = [];

  beforeAll(async () => {
    scratch = await scratchDb(dialect);
    clock = new ManualClock();
    server = await startTestServer({
      db: scratch.db,
      dataDir: scratch.dataDir,
      clock,
      env: { HEARTBEAT_TIMEOUT: '30' },
    });
  });
  afterAll(async () => {
    for (const s of streams) s.close();
    for (const d of devices) await d.sim.stop();
    await server.stop();
    await scratch.drop();
  });

  test("a session hears its organization's task outcomes and retries, never another organization's", async () => {
    const worker = new SyncWorker(server.ctx);
    const admin = await signedIn(server, 'admin');
    const otherOrg = await createOrganization(server, 'Sample Other Org');
    const otherAdmin = await signedIn(server, 'admin', undefined, otherOrg);
    const space = await createSpace(admin, 'Streamed site');
    const otherSpace = await createSpace(otherAdmin, 'Foreign site');
    const org = await organizationOf(server, space);
    const d = await registerSim(server, admin, space);
    const other = await registerSim(server, otherAdmin, otherSpace);
    devices.push(d, other);
    const mine = await openStream(server, admin);
    const theirs = await openStream(server, otherAdmin);
    streams.push(mine, theirs);

    await beat(d, other);
    await d.sim.setFaults({ status500: true });
    const p = await addPerson(server, org, [space]);
    const noPhoto = await createPerson(
      server.ctx,
      org,
      { name: 'Streamed Person Without Photo', idNumber: `LIVE-${dialect}`, spaceIds: [space] },
      { actor: { id: null, name: 'test' }, organizationId: org },
    );
    const foreign = await addPerson(server, otherOrg, [otherSpace]);
    await worker.runUntilIdle();
    const { SyncTask } = server.ctx.models;
    const task = async (personId: string) => (await SyncTask.findOne({ where: { personId } }))!;
    const failed = await task(noPhoto.id);
    expect((await admin.post(`/api/sync/tasks/${failed.id}/retry`)).status).toBe(200);
    await worker.runUntilIdle();
    await d.sim.setFaults({});
    clock.advance(5 * 60_000 + 1_000);
    await beat(d, other);
    await worker.runUntilIdle();
    for (const organizationId of [org, otherOrg]) {
      server.ctx.live.publish({ organizationId, event: 'marker', data: {} });
    }

    const heard = await mine.syncUntilMarker();
    const base = (id: string, personId: string) => ({
      id,
      personId,
      deviceId: d.id,
      action: 'put',
    });
    const pTask = (await task(p.id)).id;
    expect(heard.filter((e) => e.personId === p.id)).toEqual([
      { ...base(pTask, p.id), state: 'pending', attempts: 1, errorCode: 'device_http_status' },
      { ...base(pTask, p.id), state: 'succeeded', attempts: 1, errorCode: null },
    ]);
    expect(heard.filter((e) => e.personId === noPhoto.id)).toEqual([
      { ...base(failed.id, noPhoto.id), state: 'failed', attempts: 0, errorCode: 'no_photo' },
      { ...base(failed.id, noPhoto.id), state: 'pending', attempts: 0, errorCode: null },
      { ...base(failed.id, noPhoto.id), state: 'failed', attempts: 0, errorCode: 'no_photo' },
    ]);
    expect(heard.filter((e) => e.personId === foreign.id || e.deviceId === other.id)).toEqual([]);
    // Control: the other organization's session did hear its own task.
    const foreignHeard = await theirs.syncUntilMarker();
    expect(foreignHeard).toEqual([
      {
        id: (await task(foreign.id)).id,
        personId: foreign.id,
        deviceId: other.id,
        action: 'put',
        state: 'succeeded',
        attempts: 0,
        errorCode: null,
      },
    ]);
  });
});
