import { syncTaskList } from '@svc/shared';
import { signedIn } from '../../test/admins.js';
import { DIALECTS } from '../../test/dialects.js';
import {
  expectConverged,
  fleetSitePerTest,
  onlyCounts,
  syncCounts,
} from '../../test/sync-fleet.js';
import { until } from '../../test/wait.js';

const PEOPLE = 4;

/**
 * The server's own worker (SVC_PUSH_WORKER=1, the default setup), not one a test builds: on
 * SQLite it has a database connection of its own, and the API must still see its pushes in
 * flight (`AppContext.sync.inFlight` is the one registry both use).
 */
describe.each(DIALECTS)("the server's own worker on %s", (dialect) => {
  const startSite = fleetSitePerTest(dialect);

  test('its pushes in flight are shown running, counted on the device, and not retried', async () => {
    // The devices answer each push only after 6 s: long enough to look, within the 15 s limit.
    const { server, fleet } = await startSite({
      people: PEOPLE,
      devices: 1,
      env: { SVC_PUSH_WORKER: '1', SVC_PUSH_INTERVAL: '1' },
      faults: { delayMs: 6_000 },
    });
    const device = fleet.devices[0]!;
    const admin = await signedIn(server, 'admin');
    const runningList = async () =>
      syncTaskList.parse(
        (await admin.get(`/api/sync/tasks?state=running&deviceId=${device.id}`)).body,
      );
    await until('pushes shown running', async () => (await runningList()).total === PEOPLE);

    const running = await runningList();
    expect(running.items.every((t) => t.state === 'running')).toBe(true);
    expect(await syncCounts(admin, device.id)).toEqual(onlyCounts({ running: PEOPLE }));
    const retry = await admin.post(`/api/sync/tasks/${running.items[0]!.id}/retry`);
    expect(retry.status).toBe(409);

    await device.sim.setFaults({});
    await until(
      'every push written',
      async () => (await syncCounts(admin, device.id)).succeeded === PEOPLE,
    );
    await expectConverged(server, fleet);
  }, 120_000);
});
