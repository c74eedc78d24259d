import type { DeviceHandle, TerminalHandle } from '@svc/sim';
import { ManualClock } from '../../platform/clock.js';
import { DIALECTS, scratchDb, type ScratchDb } from '../../test/dialects.js';
import { startTestServer, type TestServer } from '../../test/harness.js';
import type { TestClient } from '../../test/http-client.js';
import { signedIn } from '../../test/admins.js';
import { DELIVERY_EXPIRY_MS, DELIVERY_MAX_DELAY_MS, retryDelay } from './outbox.js';
import { createPerson, panelLoop } from '../../test/recognition.js';
import { waitFor } from '../../test/wait.js';

describe('retry delay', () => {
  test('grows exponentially with jitter and is capped', () => {
    const opts = { baseDelayMs: 1000, maxDelayMs: 60_000 };
    expect(retryDelay(1, { ...opts, random: () => 0 })).toBe(500);
    expect(retryDelay(1, { ...opts, random: () => 1 })).toBe(1000);
    expect(retryDelay(4, { ...opts, random: () => 1 })).toBe(8000);
    expect(retryDelay(30, { ...opts, random: () => 0.999 })).toBeLessThanOrEqual(60_000);
    expect(retryDelay(30, { ...opts, random: () => 0 })).toBe(30_000);
  });
});

describe.each(DIALECTS)('panel delivery on %s', (dialect) => {
  let scratch: ScratchDb;
  let server: TestServer;
  let clock: ManualClock;
  let admin: TestClient;
  let display: TerminalHandle;
  let shown: string[];
  let gate: DeviceHandle;
  let personId: string;
  let base: number;

  beforeAll(async () => {
    scratch = await scratchDb(dialect);
    clock = new ManualClock();
    server = await startTestServer({ db: scratch.db, dataDir: scratch.dataDir, clock });
    admin = await signedIn(server, 'admin');
    ({ display, shown, gate } = await panelLoop(server, admin));
    personId = (await createPerson(admin)).id;
    base = clock.now().getTime();
  });
  afterAll(async () => {
    await gate?.stop();
    await display?.stop();
    await server?.stop();
    await scratch?.drop();
  });

  const row = (eventId: string) =>
    server.ctx.models.RecognitionEvent.findOne({ where: { eventId } }).then((r) => r!);
  /** Moves past any backoff and runs a delivery pass now. */
  const retryNow = () => {
    clock.advance(DELIVERY_MAX_DELAY_MS + 1);
    server.ctx.recognition.delivery!.wake();
  };
  const emit = async (offsetMs: number) => {
    const sent = await gate.emitEvent({ personId, time: new Date(base + offsetMs).toISOString() });
    expect(sent.status).toBe(202);
    return sent.eventId;
  };

  test('panel down: events stay pending, the oldest is retried while later ones wait; back up: all delivered in event-time order', async () => {
    await display.setFaults({ refuse: true });
    // Sent out of order: the panel must still see them by event time.
    const second = await emit(2_000);
    const first = await emit(1_000);
    const third = await emit(3_000);
    await waitFor(
      () => row(first),
      (r) => r.deliveryAttempts >= 1,
    );
    for (let attempt = 2; attempt <= 3; attempt++) {
      retryNow();
      await waitFor(
        () => row(first),
        (r) => r.deliveryAttempts >= attempt,
      );
    }
    await display.setFaults({ status500: true });
    retryNow();
    const failing = await waitFor(
      () => row(first),
      (r) => r.deliveryAttempts >= 4,
    );
    expect(failing.deliveryState).toBe('pending');
    expect(failing.deliveryError).toMatch(/HTTP 500/);
    expect(failing.nextDeliveryAt!.getTime()).toBeGreaterThan(clock.now().getTime());
    // `second` arrived first and was tried once before `first` came; since then it waits.
    expect((await row(second)).deliveryAttempts).toBeLessThanOrEqual(1);
    expect(await row(third)).toMatchObject({ deliveryState: 'pending', deliveryAttempts: 0 });
    const listed = await admin.get(`/api/recognition/events?deliveryState=pending`);
    expect(listed.body).toMatchObject({ total: 3 });
    expect(shown).toEqual([]);

    await display.setFaults({});
    retryNow();
    await waitFor(
      async () => Promise.all([first, second, third].map(row)),
      (rows) => rows.every((r) => r.deliveryState === 'delivered'),
    );
    expect(shown).toEqual([first, second, third]);
    const done = await row(first);
    expect(done.deliveryAttempts).toBe(5);
    expect(done.deliveryError).toBeNull();
    expect(done.deliveredAt).not.toBeNull();
  });

  test('an event undelivered for DELIVERY_EXPIRY_MS expires with its last error and is never shown', async () => {
    await display.setFaults({ refuse: true });
    const lost = await emit(10_000);
    await waitFor(
      () => row(lost),
      (r) => r.deliveryAttempts >= 1,
    );
    clock.advance(DELIVERY_EXPIRY_MS);
    server.ctx.recognition.delivery!.wake();
    const expired = await waitFor(
      () => row(lost),
      (r) => r.deliveryState === 'expired',
    );
    expect(expired.deliveryError).toMatch(/could not be reached/);
    expect(expired.nextDeliveryAt).toBeNull();
    await display.setFaults({});
    const later = await emit(DELIVERY_EXPIRY_MS + 20_000);
    await waitFor(
      () => row(later),
      (r) => r.deliveryState === 'delivered',
    );
    expect(shown).not.toContain(lost);
    expect((await row(lost)).deliveryState).toBe('expired');
  });

  test('pending events survive a restart and are delivered by the next server', async () => {
    await display.setFaults({ refuse: true });
    const a = await emit(DELIVERY_EXPIRY_MS + 30_000);
    const b = await emit(DELIVERY_EXPIRY_MS + 31_000);
    await waitFor(
      () => row(a),
      (r) => r.deliveryAttempts >= 1,
    );
    expect((await row(a)).deliveryState).toBe('pending');
    await server.stop();
    expect(shown).not.toContain(a);
    await display.setFaults({});

    clock = new ManualClock(new Date(clock.now().getTime() + DELIVERY_MAX_DELAY_MS + 1));
    server = await startTestServer({ db: scratch.db, dataDir: scratch.dataDir, clock });
    server.ctx.recognition.delivery!.wake();
    await waitFor(
      async () => Promise.all([a, b].map(row)),
      (rows) => rows.every((r) => r.deliveryState === 'delivered'),
    );
    expect(shown.slice(-2)).toEqual([a, b]);
  });
});
