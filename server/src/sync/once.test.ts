import { personOut } from '@svc/shared';
import { plainJpeg } from '../photos/test-images.js';
import { signedIn } from '../test/admins.js';
import { DIALECTS } from '../test/dialects.js';
import { deviceSyncOut } from './schemas.js';
import {
  expectConverged,
  repeatedPushes,
  startFleetSite,
  until,
  type FleetSite,
} from './test-fleet.js';

const PEOPLE = 50;
const DEVICES = 3;

/**
 * Each (person, version, photo) reaches a device once in normal operation: what an outside
 * client does — create a person, give them a photo right after, fifty times — with the
 * server's own worker pushing to three devices meanwhile. The pushes of version 1 and the
 * photo's version overlap with the plans of both changes, which used to push a version again.
 */
describe.each(DIALECTS)('each version reaches a device once on %s', (dialect) => {
  let site: FleetSite | undefined;

  afterEach(async () => {
    await site?.close();
    site = undefined;
  });

  test('fifty people created, each given a photo right after, on three devices: at most a stray repeat', async () => {
    site = await startFleetSite(dialect, {
      people: 0,
      devices: DEVICES,
      env: { SVC_PUSH_WORKER: '1' },
      pushLog: true,
    });
    const { server, fleet } = site;
    const admin = await signedIn(server, 'admin');
    for (let i = 0; i < PEOPLE; i++) {
      const created = await admin.post('/api/people', {
        name: `Once Person ${i}`,
        idNumber: `ONCE-${dialect}-${i}`,
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
        const sync = deviceSyncOut.parse((await admin.get(`/api/sync/devices/${d.id}`)).body);
        if (sync.counts.succeeded !== PEOPLE) return false;
      }
      return true;
    });
    await expectConverged(server, fleet);
    // Alone, this run repeats nothing. Under a fully loaded machine (the whole suite on two
    // cores) one repeat a device was still seen: a race between a success not yet written and
    // a plan that targets its task again, left open in issue 24. Before the fix every device
    // got 5–7 repeats here, so the line is held at one: each repeat is still listed.
    for (const d of fleet.devices) {
      const repeated = repeatedPushes(d.sim);
      const extra = Object.values(repeated).reduce((sum, n) => sum + n - 1, 0);
      expect({ device: d.sn, tooMany: extra > 1 ? repeated : null }).toEqual({
        device: d.sn,
        tooMany: null,
      });
    }
  }, 180_000);
});
