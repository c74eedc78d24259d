import { personOut } from '@svc/shared';
import { plainJpeg } from '../../test/images.js';
import { signedIn } from '../../test/admins.js';
import { DIALECTS } from '../../test/dialects.js';
import { startTestServer, type TestServer } from '../../test/harness.js';
import {
  expectConverged,
  fleetSitePerTest,
  repeatedPushes,
  syncCounts,
  type FleetSite,
} from '../../test/sync-fleet.js';
import { until } from '../../test/wait.js';

const PEOPLE = 50;
const DEVICES = 3;

/**
 * Each (person, version, photo) reaches a device once in normal operation: what an outside
 * client does — create a person, give them a photo right after, fifty times — with the
 * server's own worker pushing to three devices meanwhile. The pushes of version 1 and the
 * photo's version overlap with the plans of both changes, which used to push a version again
 * (5–7 repeats a device; then, under load, a read racing a success write: inflight.test.ts).
 */
async function createWithPhotos(
  apis: TestServer[],
  fleet: FleetSite['fleet'],
  tag: string,
): Promise<void> {
  const admins = await Promise.all(apis.map((api) => signedIn(api, 'admin')));
  for (let i = 0; i < PEOPLE; i++) {
    // Turn about through the processes given: each kicks its own worker.
    const admin = admins[i % admins.length]!;
    const created = await admin.post('/api/people', {
      name: `Once Person ${i}`,
      idNumber: `ONCE-${tag}-${i}`,
      spaceIds: [fleet.spaceId],
    });
    expect(created.status).toBe(201);
    const { id } = personOut.parse(created.body);
    const photo = await admin.request('PUT', `/api/people/${id}/photo`, {
      body: { photo: (await plainJpeg(64, 64, 10 + i * 4)).toString('base64') },
      csrf: true,
    });
    expect(photo.status).toBe(200);
    const person = personOut.parse((await admin.get(`/api/people/${id}`)).body);
    fleet.expected.set(id, { version: person.version, photoSha256: person.photoSha256! });
  }
  await until('every push written', async () => {
    for (const d of fleet.devices) {
      if ((await syncCounts(admins[0]!, d.id)).succeeded !== PEOPLE) return false;
    }
    return true;
  });
}

/** No device accepted any (person, version, photo) twice: each repeat listed per device. */
function expectNoRepeats(fleet: FleetSite['fleet']): void {
  const repeats = fleet.devices.map((d) => ({ device: d.sn, repeated: repeatedPushes(d.sim) }));
  expect(repeats).toEqual(fleet.devices.map((d) => ({ device: d.sn, repeated: {} })));
}

describe.each(DIALECTS)('each version reaches a device once on %s', (dialect) => {
  const startSite = fleetSitePerTest(dialect);

  test('fifty people created, each given a photo right after, on three devices: no repeat', async () => {
    const site = await startSite({
      people: 0,
      devices: DEVICES,
      env: { SVC_PUSH_WORKER: '1' },
      pushLog: true,
    });
    await createWithPhotos([site.server], site.fleet, dialect);
    await expectConverged(site.server, site.fleet);
    expectNoRepeats(site.fleet);
  }, 180_000);
});

/**
 * Two server processes on one MariaDB database, both planning and pushing (the leases decide
 * who pushes to a device), people created through both in turn. Before: 135–198 of 900 pushes
 * repeated.
 */
const mysqlOnly = DIALECTS.filter((d) => d === 'mysql');
describe.each(mysqlOnly)(
  'each version reaches a device once with two processes on %s',
  (dialect) => {
    let other: TestServer | undefined;

    // Declared first: the second process stops before the site's database is dropped.
    afterEach(async () => {
      await other?.stop();
      other = undefined;
    });
    const startSite = fleetSitePerTest(dialect);

    test('fifty people through two processes, each given a photo right after: no repeat', async () => {
      const site = await startSite({
        people: 0,
        devices: DEVICES,
        env: { SVC_PUSH_WORKER: '1' },
        pushLog: true,
      });
      other = await startTestServer({
        db: site.scratch.db,
        dataDir: site.scratch.dataDir,
        env: { SVC_PUSH_WORKER: '1' },
      });
      await createWithPhotos([site.server, other], site.fleet, `${dialect}-two`);
      await expectConverged(site.server, site.fleet);
      expectNoRepeats(site.fleet);
    }, 180_000);
  },
);
