import { randomUUID } from 'node:crypto';
import { deviceWithKey } from '@svc/shared';
import type { TerminalHandle } from '@svc/sim';
import { QueryTypes } from 'sequelize';
import { ManualClock } from '../../platform/clock.js';
import { DIALECTS, scratchDb, type ScratchDb } from '../../test/dialects.js';
import { startTestServer, type TestServer } from '../../test/harness.js';
import type { TestClient } from '../../test/http-client.js';
import { signedIn } from '../../test/admins.js';
import { DELIVERY_MAX_DELAY_MS, PANEL_LANE } from './outbox.js';
import { DELIVERY_LEASE_MS, laneLease } from './lease.js';
import { createPerson, postEvent, simulatedDisplay } from '../../test/recognition.js';
import { waitFor } from '../../test/wait.js';

/**
 * Panel delivery with more than one server process on one database: each event POSTed once,
 * in event-time order, and a lease left by a process that died taken over once it expires.
 * Two servers in this process stand for two processes (each has its own context, connection
 * pool and delivery job). Two processes on one SQLite file are not a supported setup, so the
 * two-worker case runs on MySQL/MariaDB only; the takeover runs on both.
 */
describe.each(DIALECTS)('panel delivery lease on %s', (dialect) => {
  let scratch: ScratchDb;
  let clock: ManualClock;
  let servers: TestServer[];
  let admin: TestClient;
  let display: TerminalHandle;
  let shown: string[];
  let key: string;
  let sn: string;
  let personId: string;
  let base: number;

  beforeAll(async () => {
    scratch = await scratchDb(dialect);
    clock = new ManualClock();
    const first = await startTestServer({ db: scratch.db, dataDir: scratch.dataDir, clock });
    servers = [first];
    if (dialect === 'mysql') {
      servers.push(await startTestServer({ db: scratch.db, dataDir: scratch.dataDir, clock }));
    }
    admin = await signedIn(first, 'admin');
    const panel = await simulatedDisplay();
    display = panel.display;
    shown = panel.shown;
    const superadmin = await signedIn(first, 'superadmin');
    expect(
      (await superadmin.post('/api/panel/route', { mode: 'local', url: panel.url })).status,
    ).toBe(200);
    sn = `LEASE-${randomUUID().slice(0, 8)}`;
    const reply = await admin.post('/api/devices', {
      sn,
      name: 'Sample gate',
      baseUrl: 'http://127.0.0.1:9',
    });
    key = deviceWithKey.parse(reply.body).key;
    personId = (await createPerson(admin)).id;
    base = clock.now().getTime();
  });
  afterAll(async () => {
    await display?.stop();
    for (const s of servers ?? []) await s.stop();
    await scratch?.drop();
  });

  let offset = 0;
  /** Events with increasing times, sent alternately to each server (as a load balancer would). */
  const emit = async (count: number) => {
    const ids: string[] = [];
    for (let i = 0; i < count; i++) {
      const eventId = randomUUID();
      const server = servers[i % servers.length]!;
      const body = {
        eventId,
        sn,
        personId,
        score: 0.9,
        time: new Date(base + ++offset * 1000).toISOString(),
      };
      const res = await postEvent(server, key, body);
      expect(res.status).toBe(202);
      ids.push(eventId);
    }
    return ids;
  };
  const rows = (ids: string[]) =>
    servers[0]!.ctx.models.RecognitionEvent.findAll({ where: { eventId: ids } });
  const allDelivered = (ids: string[]) =>
    waitFor(
      () => rows(ids),
      (r) => r.length === ids.length && r.every((e) => e.deliveryState === 'delivered'),
    );

  (dialect === 'mysql' ? test : test.skip)(
    'two servers on one database: every event shown exactly once, in event-time order',
    async () => {
      // Queued while the panel is down, so that both workers then race for the same events.
      await display.setFaults({ refuse: true });
      const queued = await emit(60);
      await waitFor(
        () => rows(queued.slice(0, 1)),
        (r) => r[0]!.deliveryAttempts >= 1,
      );
      // Both workers stopped while the clock jumps past the backoff: a jump in the middle of
      // a pass would look like a holder stalled beyond its lease (which may resend, by design).
      await Promise.all(servers.map((s) => s.ctx.recognition.delivery!.stop()));
      await display.setFaults({});
      clock.advance(DELIVERY_MAX_DELAY_MS + 1);
      for (const s of servers) s.ctx.recognition.delivery!.start();
      // And more while both run: each server's intake wakes its own worker.
      const live = await emit(40);
      const ids = [...queued, ...live];
      await allDelivered(ids);
      expect(shown).toEqual(ids);
      const attempts = (await rows(live)).map((r) => r.deliveryAttempts);
      expect(attempts).toEqual(live.map(() => 1));
    },
  );

  test('a lease left by a dead process blocks delivery until it expires, then is taken over', async () => {
    shown.length = 0;
    // What a process killed while delivering leaves behind: the lease, held for a while yet.
    const dead = laneLease({ sequelize: servers[0]!.ctx.db.sequelize, clock }, PANEL_LANE, {
      owner: 'killed-process',
    });
    expect(await dead.acquire()).toBe(true);
    const ids = await emit(5);
    for (const s of servers) await s.ctx.recognition.delivery!.runNow();
    expect(shown).toEqual([]);
    expect(
      (await rows(ids)).every((r) => r.deliveryState === 'pending' && r.deliveryAttempts === 0),
    ).toBe(true);

    clock.advance(DELIVERY_LEASE_MS);
    for (const s of servers) s.ctx.recognition.delivery!.wake();
    await allDelivered(ids);
    expect(shown).toEqual(ids);
    // The dead process's name is gone from the lease (free again once the queue is empty).
    const held = await servers[0]!.ctx.db.sequelize.query<{ owner: string | null }>(
      'SELECT owner FROM delivery_leases WHERE lane = :lane',
      { replacements: { lane: PANEL_LANE }, type: QueryTypes.SELECT },
    );
    expect(held[0]?.owner ?? null).not.toBe('killed-process');
  });
});
