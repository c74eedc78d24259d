import { deletePerson, updatePerson } from '../../people/service.js';
import { signedIn } from '../../test/admins.js';
import { DIALECTS } from '../../test/dialects.js';
import { suiteServer } from '../../test/suite.js';
import type { TestServer } from '../../test/harness.js';
import { applyDiffs, idRanges, missingGroups } from './write-tasks.js';
import { planSync } from './full-plan.js';
import { BULK_THRESHOLD } from '../knobs.js';
import { Planner } from './planner.js';
import { Waker } from './wake-signal.js';
import { setTimeout as sleep } from 'node:timers/promises';
import {
  addPerson,
  beat,
  createSpace,
  organizationOf,
  registerSim,
  type SimDevice,
} from '../../test/sync-setup.js';

/**
 * The planner's two paths must agree: a plan of named people (what a change during a
 * backfill gets, decided in memory) leaves nothing for the full plan (SQL per device) to
 * change, and both reach the desired state. A plan whose read is older than another plan's
 * write never moves a task back.
 */
describe.each(DIALECTS)('planning (%s)', (dialect) => {
  let server: TestServer;
  const devices: SimDevice[] = [];
  const space = { site: '', hall: '', annex: '' };
  let org = '';
  let admin: Awaited<ReturnType<typeof signedIn>>;
  const actor = () => ({ actor: { id: null, name: 'test' }, organizationId: org });

  /** (person, device) → "action version" for every task of these people. */
  const tasksOf = async (people: string[]) => {
    const rows = await server.ctx.models.SyncTask.findAll({ where: { personId: people } });
    return Object.fromEntries(
      rows.map((t) => [`${t.personId} ${t.deviceId}`, `${t.action} ${t.personVersion}`]),
    );
  };

  afterAll(async () => {
    for (const d of devices) await d.sim.stop();
  });

  const suite = suiteServer(dialect);
  beforeAll(async () => {
    server = suite.server;
    admin = await signedIn(server, 'admin');
    space.site = await createSpace(admin, 'Site');
    space.hall = await createSpace(admin, 'Hall', space.site);
    space.annex = await createSpace(admin, 'Annex');
    org = await organizationOf(server, space.site);
    devices.push(await registerSim(server, admin, space.hall));
    devices.push(await registerSim(server, admin, space.annex));
  });

  test('a plan of named people reaches what the full plan would, and leaves it nothing', async () => {
    const [hall, annex] = devices;
    const site = await addPerson(server, org, [space.site]); // the hall is below the site
    const both = await addPerson(server, org, [space.hall, space.annex]);
    const annexOnly = await addPerson(server, org, [space.annex]);
    const disabled = await addPerson(server, org, [space.site]);
    const expired = await addPerson(server, org, [space.site]);
    const leaving = await addPerson(server, org, [space.site]);
    const erased = await addPerson(server, org, [space.annex]);
    const everyone = [site, both, annexOnly, disabled, expired, leaving, erased].map((p) => p.id);
    expect((await planSync(server.ctx, { personIds: everyone })).queued).toBe(8);
    expect((await planSync(server.ctx)).queued).toBe(0);

    // Changes a person-only delta must get right.
    await updatePerson(server.ctx, org, disabled.id, { enabled: false }, actor());
    await updatePerson(
      server.ctx,
      org,
      expired.id,
      { validUntil: new Date(Date.now() - 60_000).toISOString() },
      actor(),
    );
    await updatePerson(server.ctx, org, leaving.id, { spaceIds: [space.annex] }, actor());
    await deletePerson(server.ctx, org, erased.id, actor());
    const edited = await updatePerson(
      server.ctx,
      org,
      both.id,
      { name: 'Renamed Person' },
      actor(),
    );

    await planSync(server.ctx, { personIds: everyone });
    expect((await planSync(server.ctx)).queued).toBe(0);
    const v = (p: { version: number }) => p.version;
    const leavingNow = (await server.ctx.models.Person.findByPk(leaving.id))!;
    expect(await tasksOf(everyone)).toEqual({
      [`${site.id} ${hall!.id}`]: `put ${v(site)}`,
      [`${both.id} ${hall!.id}`]: `put ${edited.version}`,
      [`${both.id} ${annex!.id}`]: `put ${edited.version}`,
      [`${annexOnly.id} ${annex!.id}`]: `put ${v(annexOnly)}`,
      // Left the hall's reach: deleted there, now on the annex.
      [`${leaving.id} ${hall!.id}`]: `delete ${v(leaving)}`,
      [`${leaving.id} ${annex!.id}`]: `put ${leavingNow.version}`,
      [`${disabled.id} ${hall!.id}`]: `delete ${v(disabled)}`,
      [`${expired.id} ${hall!.id}`]: `delete ${v(expired)}`,
      [`${erased.id} ${annex!.id}`]: `delete ${v(erased)}`,
    });
  });

  test('a full plan writes the missing tasks in the database: one per pair, each with its own UUID', async () => {
    const [hall, annex] = devices;
    const people = [];
    for (let i = 0; i < 60; i++)
      people.push(await addPerson(server, org, [space.site, space.annex]));
    const ids = people.map((p) => p.id);
    // More than the bulk threshold at once: the bulk lane.
    expect((await planSync(server.ctx)).queued).toBe(120);
    const rows = await server.ctx.models.SyncTask.findAll({ where: { personId: ids } });
    expect(rows).toHaveLength(120);
    expect(new Set(rows.map((r) => r.id)).size).toBe(120);
    for (const r of rows) {
      expect(r.id).toMatch(
        /^[0-9a-f]{8}-[0-9a-f]{4}-[1-8][0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/,
      );
      expect([r.action, r.state, r.lane, r.attempts]).toEqual(['put', 'pending', 'bulk', 0]);
      expect([hall!.id, annex!.id]).toContain(r.deviceId);
      const person = people.find((p) => p.id === r.personId)!;
      expect([r.personVersion, r.photoSha256]).toEqual([person.version, person.photoSha256]);
    }
    expect((await planSync(server.ctx)).queued).toBe(0);
  });

  test('a plan read before a newer change does not move the task back', async () => {
    const [hall] = devices;
    const person = await addPerson(server, org, [space.site]);
    await planSync(server.ctx, { personIds: [person.id] });
    const task = (await server.ctx.models.SyncTask.findOne({
      where: { personId: person.id, deviceId: hall!.id },
    }))!;
    // Another plan already wrote the newer version …
    const newer = await updatePerson(server.ctx, org, person.id, { name: 'Newer Name' }, actor());
    await planSync(server.ctx, { personIds: [person.id] });
    // … when one that read the person before that change writes what it saw.
    const now = server.ctx.clock.now();
    const stale = { personId: person.id, photoSha256: person.photoSha256, taskId: task.id };
    await applyDiffs(
      server.ctx,
      [
        {
          device: { id: hall!.id, organizationId: org },
          diff: { puts: [{ ...stale, version: person.version }], deletes: [] },
        },
      ],
      now,
    );
    await applyDiffs(
      server.ctx,
      [
        {
          device: { id: hall!.id, organizationId: org },
          diff: { puts: [], deletes: [{ taskId: task.id, version: person.version }] },
        },
      ],
      now,
    );
    expect(await tasksOf([person.id])).toEqual({
      [`${person.id} ${hall!.id}`]: `put ${newer.version}`,
    });
  });
  test('devices of the same spaces get their new tasks together, each pair its own', async () => {
    const wing = await createSpace(admin, 'Wing');
    const pair = [await registerSim(server, admin, wing), await registerSim(server, admin, wing)];
    devices.push(...pair);
    const people = [];
    for (let i = 0; i < 3; i++) people.push(await addPerson(server, org, [wing]));
    expect((await planSync(server.ctx)).queued).toBe(6);
    const rows = await server.ctx.models.SyncTask.findAll({
      where: { personId: people.map((p) => p.id) },
    });
    expect(rows.map((r) => `${r.personId} ${r.deviceId} ${r.lane}`).sort()).toEqual(
      people.flatMap((p) => pair.map((d) => `${p.id} ${d.id} priority`)).sort(),
    );
    expect(new Set(rows.map((r) => r.id)).size).toBe(6);
    expect((await planSync(server.ctx)).queued).toBe(0);
  });

  test('a device without tasks gets everyone it should hold, again after its tasks are gone', async () => {
    const gate = await createSpace(admin, 'Gate');
    const device = await registerSim(server, admin, gate);
    devices.push(device);
    const holds = [await addPerson(server, org, [gate]), await addPerson(server, org, [gate])];
    const disabled = await addPerson(server, org, [gate]);
    await updatePerson(server.ctx, org, disabled.id, { enabled: false }, actor());
    const expired = await addPerson(server, org, [gate]);
    const past = new Date(Date.now() - 60_000).toISOString();
    await updatePerson(server.ctx, org, expired.id, { validUntil: past }, actor());
    const tasksOfGate = async () =>
      (await server.ctx.models.SyncTask.findAll({ where: { deviceId: device.id } }))
        .map((t) => `${t.personId} ${t.action} ${t.lane}`)
        .sort();
    const expected = holds.map((p) => `${p.id} put priority`).sort();
    const lanes: string[] = [];
    const plan = () =>
      planSync(server.ctx, { deviceIds: [device.id], onQueued: (l) => lanes.push(l) });
    expect((await plan()).queued).toBe(2);
    expect(await tasksOfGate()).toEqual(expected);
    expect(lanes).toEqual(['priority']);
    expect((await plan()).queued).toBe(0);
    await server.ctx.models.SyncTask.destroy({ where: { deviceId: device.id } });
    expect((await plan()).queued).toBe(2);
    expect(await tasksOfGate()).toEqual(expected);

    // A few tasks: compared person by person, the rest counted as missing.
    await updatePerson(server.ctx, org, holds[0]!.id, { enabled: false }, actor());
    const renamed = await updatePerson(
      server.ctx,
      org,
      holds[1]!.id,
      { name: 'Gate Two' },
      actor(),
    );
    const newcomer = await addPerson(server, org, [gate]);
    expect((await plan()).queued).toBe(3);
    expect(await tasksOfGate()).toEqual(
      [
        `${holds[0]!.id} delete priority`,
        `${holds[1]!.id} put priority`,
        `${newcomer.id} put priority`,
      ].sort(),
    );
    const task = await server.ctx.models.SyncTask.findOne({
      where: { deviceId: device.id, personId: holds[1]!.id },
    });
    expect(task?.personVersion).toBe(renamed.version);
    expect((await plan()).queued).toBe(0);
  });

  test("the planner counts plans of priority work only, not for a device's backfill", async () => {
    const dock = await createSpace(admin, 'Dock');
    for (let i = 0; i < BULK_THRESHOLD + 1; i++) await addPerson(server, org, [dock]);
    const planner = new Planner({ ctx: server.ctx, waker: new Waker(), fullPlanEveryMs: 60_000 });
    await planner.plan(true);
    const before = planner.priorityPlans;
    devices.push(await registerSim(server, admin, dock));
    // The new device's 51 people: bulk lane, claimed in turn.
    expect(await planner.plan(false)).toBe(BULK_THRESHOLD + 1);
    expect(planner.priorityPlans).toBe(before);
    // A person created: planned on its own (with the people updated in the last seconds).
    const added = await addPerson(server, org, [dock]);
    expect(await planner.plan(false)).toBeGreaterThanOrEqual(1);
    expect(planner.priorityPlans).toBe(before + 1);
    const task = await server.ctx.models.SyncTask.findOne({ where: { personId: added.id } });
    expect([task?.action, task?.personVersion]).toEqual(['put', added.version]);
  });
  test('devices registered one after another while a plan runs are planned together', async () => {
    const yard = await createSpace(admin, 'Yard');
    for (let i = 0; i < 3; i++) await addPerson(server, org, [yard]);
    const waker = new Waker();
    const planner = new Planner({ ctx: server.ctx, waker, fullPlanEveryMs: 60_000 });
    await planner.plan(true);
    devices.push(await registerSim(server, admin, yard));
    // The devices of each statement that writes new tasks.
    const statements: string[][] = [];
    const sequelize = server.ctx.db.sequelize;
    // Restored below: the same method, put back on the same object.
    // eslint-disable-next-line @typescript-eslint/unbound-method
    const query = sequelize.query;
    sequelize.query = ((...args: unknown[]) => {
      const [sql, options] = args as [unknown, { replacements?: { devs?: string[] } } | undefined];
      if (typeof sql === 'string' && sql.includes('CROSS JOIN devices d')) {
        statements.push([...(options?.replacements?.devs ?? [])].sort());
      }
      return (query as (...a: unknown[]) => unknown).apply(sequelize, args);
    }) as typeof query;
    const later: SimDevice[] = [];
    try {
      // The first device's plan; two more arrive while it runs, each seen by a check of its
      // own (the waker starts one at once), 200 ms apart.
      await planner.plan(false, async () => {
        if (later.length > 0) return;
        while (later.length < 2) {
          later.push(await registerSim(server, admin, yard));
          waker.wake();
          await new Promise((resolve) => setTimeout(resolve, 200));
        }
      });
    } finally {
      sequelize.query = query;
      devices.push(...later);
    }
    expect(statements).toContainEqual(later.map((d) => d.id).sort());
    expect(
      statements.filter((devs) => devs.length === 1 && later.some((d) => d.id === devs[0])),
    ).toEqual([]);
    for (const d of later) {
      expect(await server.ctx.models.SyncTask.count({ where: { deviceId: d.id } })).toBe(3);
    }
  });
  // Last in this block: it marks every pending task succeeded.
  test('the periodic full plan waits while an online device has due work, one period more at most', async () => {
    const dock = await createSpace(admin, 'Loading dock');
    const d = await registerSim(server, admin, dock);
    devices.push(d);
    const person = await addPerson(server, org, [dock]);
    await addPerson(server, org, [dock]);
    const every = 1_000;
    const planner = new Planner({ ctx: server.ctx, waker: new Waker(), fullPlanEveryMs: every });
    await planner.plan(true);
    await beat(d);
    // A task lost behind the fingerprint's back: only a full plan brings it back.
    const mine = { where: { personId: person.id, deviceId: d.id } };
    const lose = () => server.ctx.models.SyncTask.destroy(mine);
    const restored = async () => (await server.ctx.models.SyncTask.count(mine)) === 1;
    await lose();
    await sleep(every + 100);
    // The other person's task is due on an online device: a backfill, so the plan waits.
    expect(await planner.plan(false)).toBe(0);
    expect(await restored()).toBe(false);
    // Two periods late: it runs all the same.
    await sleep(every);
    expect(await planner.plan(false)).toBe(1);
    expect(await restored()).toBe(true);
    // Nothing due: one period is enough.
    await server.ctx.models.SyncTask.update(
      { state: 'succeeded' },
      { where: { state: 'pending' } },
    );
    await lose();
    await sleep(every + 100);
    expect(await planner.plan(false)).toBe(1);
    expect(await restored()).toBe(true);
  });
});

describe('id ranges of a full plan', () => {
  test('every id falls in exactly one range, at every size', () => {
    const ids = [
      '',
      '0',
      '00000000-0000-4000-8000-000000000000',
      '1',
      '9zz',
      'A1B2',
      'f',
      'ffffffff-ffff-4fff-bfff-ffffffffffff',
      'g-not-hex',
      '~',
      ...Array.from({ length: 200 }, () => crypto.randomUUID()),
    ];
    for (const count of [10, 5_001, 80_000, 80_001, 1_000_000]) {
      const ranges = idRanges(count);
      expect(ranges.length).toBe(count <= 5_000 ? 1 : count <= 80_000 ? 16 : 256);
      for (const id of ids) {
        const holders = ranges.filter(
          ({ lo, hi }) => (lo === null || id >= lo) && (hi === null || id < hi),
        );
        expect(holders).toHaveLength(1);
      }
    }
  });
});

describe('devices whose missing tasks share a statement', () => {
  const device = (id: string, organizationId = 'org') => ({ id, organizationId });
  test('same organization, lane and spaces (in any order) go together', () => {
    const groups = missingGroups([
      { device: device('a'), spaces: ['s1', 's2'], lane: 'bulk' },
      { device: device('b'), spaces: ['s2', 's1'], lane: 'bulk' },
      { device: device('c'), spaces: ['s1', 's2'], lane: 'priority' },
      { device: device('d'), spaces: ['s1'], lane: 'bulk' },
      { device: device('e', 'other'), spaces: ['s1', 's2'], lane: 'bulk' },
    ]);
    expect(groups.map((g) => g.deviceIds)).toEqual([['a', 'b'], ['c'], ['d'], ['e']]);
    expect(groups.map((g) => [g.organizationId, g.lane])).toEqual([
      ['org', 'bulk'],
      ['org', 'priority'],
      ['org', 'bulk'],
      ['other', 'bulk'],
    ]);
  });
});
