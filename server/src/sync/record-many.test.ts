import { randomUUID } from 'node:crypto';
import { deviceWithKey } from '@svc/shared';
import { signedIn } from '../test/admins.js';
import { DIALECTS, scratchDb, type ScratchDb } from '../test/dialects.js';
import { startTestServer, type TestServer } from '../test/harness.js';
import type { TaskRow } from './claim.js';
import { recordDone } from './recorder.js';
import { createSpace } from './test-setup.js';

/**
 * The recorder writes up to 2,000 successes per statement: more than SQLite allows in a
 * UNION ALL (500 terms), so the shape of that statement is checked on a real database of each
 * kind, with tasks whose target changed while they were pushed mixed in.
 */
describe.each(DIALECTS)('recording many successes at once (%s)', (dialect) => {
  let scratch: ScratchDb;
  let server: TestServer;

  beforeAll(async () => {
    scratch = await scratchDb(dialect);
    server = await startTestServer({ db: scratch.db, dataDir: scratch.dataDir });
  });
  afterAll(async () => {
    await server?.stop();
    await scratch?.drop();
  });

  test('1,200 successes in one call: written, or back to pending where the target moved', async () => {
    const admin = await signedIn(server, 'admin');
    const spaceId = await createSpace(admin, 'Records');
    const reply = await admin.post('/api/devices', {
      sn: `REC-${dialect}-${process.pid}`,
      name: 'Records door',
      baseUrl: 'http://127.0.0.1:9',
      spaceId,
    });
    const device = deviceWithKey.parse(reply.body);
    const now = new Date();
    const rows = await server.ctx.models.SyncTask.bulkCreate(
      Array.from({ length: 1200 }, () => ({
        id: randomUUID(),
        organizationId: device.organizationId,
        personId: randomUUID(),
        deviceId: device.id,
        action: 'put' as const,
        lane: 'bulk' as const,
        state: 'pending' as const,
        personVersion: 3,
        photoSha256: 'a'.repeat(64),
        attempts: 0,
        nextAttemptAt: new Date(now.getTime() - 60_000),
        createdAt: now,
        updatedAt: now,
      })),
    );
    const tasks: TaskRow[] = rows.map((r) => r.get({ plain: true }));
    // The planner moved three of them to a newer version while they were being pushed.
    const moved = tasks.slice(0, 3).map((t) => t.id);
    await server.ctx.models.SyncTask.update({ personVersion: 4 }, { where: { id: moved } });

    await recordDone(
      server.ctx,
      tasks.map((task) => ({
        task,
        outcome: { kind: 'done', result: { version: 3, photoSha256: 'a'.repeat(64) } },
      })),
    );

    const after = await server.ctx.models.SyncTask.findAll({ where: { deviceId: device.id } });
    const byState = (state: string) => after.filter((t) => t.state === state);
    expect(byState('succeeded')).toHaveLength(1197);
    expect(byState('succeeded').every((t) => t.resultVersion === 3 && t.finishedAt !== null)).toBe(
      true,
    );
    // Kept what the device now holds, and due again at once (after the device's read
    // position) to push the newer version.
    expect(
      byState('pending')
        .map((t) => t.id)
        .sort(),
    ).toEqual([...moved].sort());
    expect(
      byState('pending').every(
        (t) =>
          t.resultVersion === 3 &&
          t.personVersion === 4 &&
          t.nextAttemptAt.getTime() > now.getTime() - 60_000,
      ),
    ).toBe(true);
  });
});
