import { randomUUID } from 'node:crypto';
import { deviceWithKey } from '@svc/shared';
import { signedIn } from '../../test/admins.js';
import { DIALECTS } from '../../test/dialects.js';
import { suiteServer } from '../../test/suite.js';
import type { TaskRow } from '../tasks/rows.js';
import { recordDone } from './store/outcomes.js';
import { createSpace } from '../../test/sync-setup.js';

/**
 * The success writer writes up to 2,000 successes per statement: more than SQLite allows in a
 * UNION ALL (500 terms), so the shape of that statement is checked on a real database of each
 * kind, with tasks whose target changed while they were pushed mixed in.
 */
describe.each(DIALECTS)('recording many successes at once (%s)', (dialect) => {
  const suite = suiteServer(dialect);

  test('1,200 successes in one call: written (at the pushed target), or back to pending where the target moved', async () => {
    const admin = await signedIn(suite.server, 'admin');
    const spaceId = await createSpace(admin, 'Records');
    const reply = await admin.post('/api/devices', {
      sn: `REC-${dialect}-${process.pid}`,
      name: 'Records door',
      baseUrl: 'http://127.0.0.1:9',
      spaceId,
    });
    const device = deviceWithKey.parse(reply.body);
    const now = new Date();
    const photo = 'a'.repeat(64);
    const rows = await suite.server.ctx.models.SyncTask.bulkCreate(
      Array.from({ length: 1200 }, (_, i) => ({
        id: randomUUID(),
        organizationId: device.organizationId,
        personId: randomUUID(),
        deviceId: device.id,
        action: 'put' as const,
        lane: 'bulk' as const,
        state: 'pending' as const,
        // Two versions: the plain successes are written by one clause per version.
        personVersion: i < 1000 ? 3 : 2,
        photoSha256: photo,
        attempts: 0,
        nextAttemptAt: new Date(now.getTime() - 60_000),
        createdAt: now,
        updatedAt: now,
      })),
    );
    const tasks: TaskRow[] = rows.map((r) => r.get({ plain: true }));
    // The planner moved three of them to a newer version while they were being pushed.
    const moved = tasks.slice(0, 3).map((t) => t.id);
    await suite.server.ctx.models.SyncTask.update({ personVersion: 4 }, { where: { id: moved } });
    // Five were pushed at a newer version than they were read at (the person was edited, and
    // another device's read brought the newer row first); one of those was moved on again.
    const newer = { version: 5, photoSha256: 'b'.repeat(64) };
    const retargeted = tasks.slice(1100, 1105).map((t) => t.id);
    const movedAgain = tasks[1105]!.id;
    await suite.server.ctx.models.SyncTask.update(
      { personVersion: 6 },
      { where: { id: movedAgain } },
    );
    // One the planner moved to exactly what was pushed meanwhile: done, not pushed again.
    const caughtUp = tasks[1106]!.id;
    await suite.server.ctx.models.SyncTask.update(
      { personVersion: newer.version, photoSha256: newer.photoSha256 },
      { where: { id: caughtUp } },
    );

    await recordDone(
      suite.server.ctx,
      tasks.map((task) => {
        const pushed =
          retargeted.includes(task.id) || task.id === movedAgain || task.id === caughtUp
            ? newer
            : { version: task.personVersion, photoSha256: photo };
        return { task, outcome: { kind: 'done', result: pushed, pushed } };
      }),
    );

    const after = await suite.server.ctx.models.SyncTask.findAll({
      where: { deviceId: device.id },
    });
    const byState = (state: string) => after.filter((t) => t.state === state);
    expect(byState('succeeded')).toHaveLength(1196);
    expect(
      byState('succeeded').every(
        (t) =>
          t.finishedAt !== null &&
          (retargeted.includes(t.id) || t.id === caughtUp
            ? t.personVersion === 5 && t.resultVersion === 5 && t.photoSha256 === newer.photoSha256
            : t.resultVersion === t.personVersion && t.photoSha256 === photo) &&
          t.resultPhotoSha256 === t.photoSha256,
      ),
    ).toBe(true);
    expect(
      byState('succeeded').filter((t) => t.personVersion === 2 && t.resultVersion === 2).length,
    ).toBe(193);
    // Kept what the device now holds, and due again at once (after the device's read
    // position) to push the newer version.
    expect(
      byState('pending')
        .map((t) => t.id)
        .sort(),
    ).toEqual([...moved, movedAgain].sort());
    expect(
      byState('pending').every(
        (t) =>
          t.resultVersion === (t.id === movedAgain ? 5 : 3) &&
          t.personVersion === (t.id === movedAgain ? 6 : 4) &&
          t.nextAttemptAt.getTime() > now.getTime() - 60_000,
      ),
    ).toBe(true);
  });
});
