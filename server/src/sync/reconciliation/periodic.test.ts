import { signedIn } from '../../test/admins.js';
import { DIALECTS } from '../../test/dialects.js';
import { suiteServer } from '../../test/suite.js';
import { addPerson, beat, held, simDoor, type SimDevice } from '../../test/sync-setup.js';
import { SyncWorker } from '../worker/worker.js';
import { until } from '../../test/wait.js';

/**
 * The worker's own periodic reconciliation (it runs beside the push runs, not between them):
 * a person the device lost without telling anyone is found and pushed again with no one
 * asking for it.
 */
describe.each(DIALECTS)('periodic reconciliation by the running worker (%s)', (dialect) => {
  let worker: SyncWorker | undefined;
  const devices: SimDevice[] = [];

  const suite = suiteServer(dialect);
  afterAll(async () => {
    await worker?.stop();
    for (const d of devices) await d.sim.stop();
  });

  test('a person the device lost is found and pushed again', async () => {
    const admin = await signedIn(suite.server, 'admin');
    const door = await simDoor(suite.server, admin, 'Reconciled hall', { devices, beat: false });
    const person = await addPerson(suite.server, door.org, [door.spaceId]);
    await beat(door.d);
    worker = new SyncWorker(suite.server.ctx, { reconcileEveryMs: 200 });
    worker.start();
    const device = door.d;
    await until('the device holds it', () => held(device)[person.id]?.version === person.version);

    expect(await device.sim.removePersonSilently(person.id)).toBe(true);
    await until('the device holds it', () => held(device)[person.id]?.version === person.version);
    expect(held(device)[person.id]).toEqual({
      version: person.version,
      photoSha256: person.photoSha256,
    });
  });
});
