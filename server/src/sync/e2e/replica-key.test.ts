import { randomBytes } from 'node:crypto';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { heartbeatResponse } from '@svc/shared';
import { signedIn } from '../../test/admins.js';
import { DIALECTS, scratchDb, type ScratchDb } from '../../test/dialects.js';
import { startTestServer, type TestServer } from '../../test/harness.js';
import { addPerson, simDoor, type SimDevice } from '../../test/sync-setup.js';
import { SyncWorker } from '../worker/worker.js';

/**
 * Two server processes on one database, each with a DATA_DIR of its own (a replica set up
 * without sharing the files): the device key sealed by one cannot be opened by the other. That
 * is the second process's setup, not the task's fault: its tasks stay pending for a process
 * that can push them, and the second process says so in its heartbeat.
 */
describe.each(DIALECTS)('a server process that cannot open a device key on %s', (dialect) => {
  let scratch: ScratchDb;
  let otherDir: string;
  let first: TestServer | undefined;
  let second: TestServer | undefined;
  const devices: SimDevice[] = [];

  afterEach(async () => {
    for (const d of devices.splice(0)) await d.sim.stop();
    await second?.stop();
    await first?.stop();
    await scratch?.drop();
    await rm(otherDir, { recursive: true, force: true });
  });

  test('leaves the tasks pending, warns in its heartbeat; the process with the key pushes them', async () => {
    scratch = await scratchDb(dialect);
    otherDir = await mkdtemp(path.join(os.tmpdir(), 'svc-replica-'));
    first = await startTestServer({ db: scratch.db, dataDir: scratch.dataDir });
    const admin = await signedIn(first, 'admin');
    const { d: device, spaceId, org } = await simDoor(first, admin, 'Replicated', { devices });
    const person = await addPerson(first, org, [spaceId]);
    second = await startTestServer({ db: scratch.db, dataDir: otherDir });

    await new SyncWorker(second.ctx).runOnce();
    const task = await first.ctx.models.SyncTask.findOne({ where: { personId: person.id } });
    expect(task).toMatchObject({ state: 'pending', attempts: 0, errorCode: null });
    const heartbeat = await fetch(`${second.url}/api/heartbeat`);
    const { warnings, warningDetails } = heartbeatResponse.parse(await heartbeat.json());
    expect(warnings.some((w) => w.includes(device.sn) && w.includes('DATA_DIR'))).toBe(true);
    expect(warningDetails).toContainEqual(
      expect.objectContaining({ code: 'device_key_unopenable_here', params: { sn: device.sn } }),
    );
    expect(second.logs.text()).toContain('sync cannot push to a device from this server process');

    await new SyncWorker(first.ctx).runUntilIdle();
    await task!.reload();
    expect(task!.state).toBe('succeeded');
    expect(device.sim.person(person.id)).toMatchObject({ version: person.version });
  }, 120_000);

  test('with DEVICE_KEY_SECRET_FILE the key opens anywhere; a photo missing here is retried, not failed', async () => {
    scratch = await scratchDb(dialect);
    otherDir = await mkdtemp(path.join(os.tmpdir(), 'svc-replica-'));
    const secretFile = path.join(otherDir, 'secret');
    await writeFile(secretFile, `${randomBytes(32).toString('base64')}\n`, { mode: 0o600 });
    const env = { DEVICE_KEY_SECRET_FILE: secretFile };
    first = await startTestServer({ db: scratch.db, dataDir: scratch.dataDir, env });
    const admin = await signedIn(first, 'admin');
    const { d: device, spaceId, org } = await simDoor(first, admin, 'Replicated', { devices });
    const person = await addPerson(first, org, [spaceId]);
    // Another DATA_DIR, the same secret: the key opens, but the photo is not in its files.
    second = await startTestServer({ db: scratch.db, dataDir: path.join(otherDir, 'data'), env });

    await new SyncWorker(second.ctx).runOnce();
    const task = await first.ctx.models.SyncTask.findOne({ where: { personId: person.id } });
    expect(task).toMatchObject({ state: 'pending', attempts: 1, errorCode: 'photo_missing' });
    expect(task!.nextAttemptAt.getTime()).toBeGreaterThan(Date.now());
    const heartbeat = await fetch(`${second.url}/api/heartbeat`);
    const { warnings, warningDetails } = heartbeatResponse.parse(await heartbeat.json());
    expect(warnings.filter((w) => w.includes('photos are missing'))).toHaveLength(1);
    expect(warningDetails?.map((w) => w.code)).toContain('photos_missing_here');
    expect(second.logs.text()).toContain('sync cannot push to a device from this server process');
    expect(device.sim.person(person.id)).toBeUndefined();

    // The process with the files pushes it once it is due (no waiting for the backoff here).
    await task!.update({ nextAttemptAt: new Date() });
    await new SyncWorker(first.ctx).runUntilIdle();
    await task!.reload();
    expect(task).toMatchObject({ state: 'succeeded', errorCode: null });
    expect(device.sim.person(person.id)).toMatchObject({ version: person.version });
  }, 120_000);
});
