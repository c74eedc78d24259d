import { ManualClock } from '../../platform/clock.js';
import { createPerson } from '../../people/service.js';
import { signedIn } from '../../test/admins.js';
import { DIALECTS } from '../../test/dialects.js';
import { suiteServer } from '../../test/suite.js';
import type { TestServer } from '../../test/harness.js';
import type { TestClient } from '../../test/http-client.js';
import { createOrganization } from '../../test/org-fixtures.js';
import type { SyncLiveEvent } from '../live.js';
import { addPerson, beat, simDoor, type SimDevice } from '../../test/sync-setup.js';
import { SyncWorker } from '../worker/worker.js';
import { openEventStream } from '../../test/sse.js';

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
  const clock = new ManualClock();
  const devices: SimDevice[] = [];
  const streams: Stream[] = [];

  afterAll(async () => {
    for (const s of streams) s.close();
    for (const d of devices) await d.sim.stop();
  });
  const suite = suiteServer(dialect, { clock, env: { HEARTBEAT_TIMEOUT: '30' } });

  test("a session hears its organization's task outcomes and retries, never another organization's", async () => {
    const worker = new SyncWorker(suite.server.ctx);
    const admin = await signedIn(suite.server, 'admin');
    const otherOrg = await createOrganization(suite.server, 'Sample Other Org');
    const otherAdmin = await signedIn(suite.server, 'admin', undefined, otherOrg);
    const here = await simDoor(suite.server, admin, 'Streamed site', { devices, beat: false });
    const there = await simDoor(suite.server, otherAdmin, 'Foreign site', { devices, beat: false });
    const { d, org, spaceId: space } = here;
    const { d: other, spaceId: otherSpace } = there;
    const mine = await openStream(suite.server, admin);
    const theirs = await openStream(suite.server, otherAdmin);
    streams.push(mine, theirs);

    await beat(d, other);
    await d.sim.setFaults({ status500: true });
    const p = await addPerson(suite.server, org, [space]);
    const noPhoto = await createPerson(
      suite.server.ctx,
      org,
      { name: 'Streamed Person Without Photo', idNumber: `LIVE-${dialect}`, spaceIds: [space] },
      { actor: { id: null, name: 'test' }, organizationId: org },
    );
    const foreign = await addPerson(suite.server, otherOrg, [otherSpace]);
    await worker.runUntilIdle();
    const { SyncTask } = suite.server.ctx.models;
    const task = async (personId: string) => (await SyncTask.findOne({ where: { personId } }))!;
    const failed = await task(noPhoto.id);
    expect((await admin.post(`/api/sync/tasks/${failed.id}/retry`)).status).toBe(200);
    await worker.runUntilIdle();
    await d.sim.setFaults({});
    clock.advance(5 * 60_000 + 1_000);
    await beat(d, other);
    await worker.runUntilIdle();
    for (const organizationId of [org, otherOrg]) {
      suite.server.ctx.live.publish({ organizationId, event: 'marker', data: {} });
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
