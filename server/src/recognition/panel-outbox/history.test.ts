import { randomUUID } from 'node:crypto';
import { DELIVERY_FAILURES_KEPT, deliveryHistoryOut, recognitionEventOut } from '@svc/shared';
import type { DeviceHandle, TerminalHandle } from '@svc/sim';
import { ManualClock } from '../../platform/clock.js';
import { DIALECTS } from '../../test/dialects.js';
import { suiteServer } from '../../test/suite.js';
import type { TestServer } from '../../test/harness.js';
import type { TestClient } from '../../test/http-client.js';
import { signedIn } from '../../test/admins.js';
import { FAILURE_TABLE, failedTries, recordFailedTry } from '../store/failures.js';
import { DELIVERY_MAX_DELAY_MS } from './outbox.js';
import { purgeOldEvents } from '../events/retention.js';
import { panelLoop } from '../../test/recognition.js';
import { waitFor } from '../../test/wait.js';

const DAY = 24 * 60 * 60_000;

describe.each(DIALECTS)('delivery history on %s', (dialect) => {
  let server: TestServer;
  let admin: TestClient;
  let display: TerminalHandle;
  let shown: string[];
  let gate: DeviceHandle;
  const clock = new ManualClock();

  afterAll(async () => {
    await gate?.stop();
    await display?.stop();
  });
  const suite = suiteServer(dialect, { clock });
  beforeAll(async () => {
    server = suite.server;
    admin = await signedIn(server, 'admin');
    ({ display, shown, gate } = await panelLoop(server, admin));
  });

  const event = async (id: string) => {
    const reply = await admin.get(`/api/recognition/events/${id}`);
    return recognitionEventOut.parse(reply.body);
  };
  const history = async (id: string) => {
    const reply = await admin.get(`/api/recognition/events/${id}/deliveries`);
    expect(reply.status).toBe(200);
    return deliveryHistoryOut.parse(reply.body).failures;
  };
  const retryNow = () => {
    clock.advance(DELIVERY_MAX_DELAY_MS + 1);
    server.ctx.recognition.delivery!.wake();
  };
  const emit = async () => {
    const sent = await gate.emitEvent({ personId: null, time: clock.now().toISOString() });
    expect(sent.status).toBe(202);
    const row = await server.ctx.models.RecognitionEvent.findOne({
      where: { eventId: sent.eventId },
    });
    return { id: row!.id, eventId: sent.eventId };
  };

  test('a panel answering 500 then recovering: each failed try with its reason, then delivered', async () => {
    await display.setFaults({ status500: true });
    const { id, eventId } = await emit();
    await waitFor(
      () => event(id),
      (e) => e.delivery.attempts >= 1,
    );
    for (let attempt = 2; attempt <= 3; attempt++) {
      retryNow();
      await waitFor(
        () => event(id),
        (e) => e.delivery.attempts >= attempt,
      );
    }
    const failing = await history(id);
    expect(failing.map((f) => f.attempt)).toEqual([1, 2, 3]);
    for (const f of failing) {
      expect(f.error).toBe('the panel answered HTTP 500');
      // Issue 34: the code and values a client words the reason from.
      expect(f).toMatchObject({ errorCode: 'panel_http_status', errorParams: { status: 500 } });
    }
    expect((await event(id)).delivery).toMatchObject({
      errorCode: 'panel_http_status',
      errorParams: { status: 500 },
    });
    // Each try at the (manual) time it failed: one backoff jump apart.
    const times = failing.map((f) => Date.parse(f.at));
    expect(times[1]! - times[0]!).toBeGreaterThanOrEqual(DELIVERY_MAX_DELAY_MS);
    expect(times[2]! - times[1]!).toBeGreaterThanOrEqual(DELIVERY_MAX_DELAY_MS);
    expect((await event(id)).delivery).toMatchObject({ state: 'pending', deliveredAt: null });

    await display.setFaults({});
    retryNow();
    const delivered = await waitFor(
      () => event(id),
      (e) => e.delivery.state === 'delivered',
    );
    expect(shown).toContain(eventId);
    expect(delivered.delivery).toMatchObject({ attempts: 4, error: null, errorCode: null });
    expect(Date.parse(delivered.delivery.deliveredAt!)).toBeGreaterThan(times[2]!);
    // The delivery adds no line: the failed tries stay as they were.
    expect(await history(id)).toEqual(failing);
  });

  test('an event delivered at once has an empty history; an unknown event is 404', async () => {
    await display.setFaults({});
    const { id } = await emit();
    await waitFor(
      () => event(id),
      (e) => e.delivery.state === 'delivered',
    );
    expect(await history(id)).toEqual([]);
    const missing = await admin.get(`/api/recognition/events/${randomUUID()}/deliveries`);
    expect(missing.status).toBe(404);
  });

  test(`only the last ${DELIVERY_FAILURES_KEPT} tries are kept, and the purge erases them with their event`, async () => {
    await display.setFaults({ refuse: true });
    const { id } = await emit();
    await waitFor(
      () => event(id),
      (e) => e.delivery.attempts >= 1,
    );
    await display.setFaults({});
    const { sequelize } = server.ctx.db;
    const total = DELIVERY_FAILURES_KEPT + 5;
    for (let attempt = 2; attempt <= total; attempt++) {
      await recordFailedTry(sequelize, {
        eventId: id,
        attempt,
        at: new Date(clock.now().getTime() + attempt),
        error: `sample failure ${attempt}`,
      });
    }
    const kept = await failedTries(sequelize, id);
    expect(kept.map((f) => f.attempt)).toEqual(
      Array.from(
        { length: DELIVERY_FAILURES_KEPT },
        (_, i) => total - DELIVERY_FAILURES_KEPT + 1 + i,
      ),
    );
    expect(kept.at(-1)!.error).toBe(`sample failure ${total}`);

    // Older than the retention period: the purge deletes the event, the cascade its tries.
    await server.ctx.models.RecognitionEvent.update(
      { time: new Date(clock.now().getTime() - 100 * DAY) },
      { where: { id } },
    );
    expect(await purgeOldEvents(server.ctx)).toBe(1);
    const [left] = await sequelize.query(
      `SELECT COUNT(*) AS n FROM ${FAILURE_TABLE} WHERE event_id = ?`,
      { replacements: [id] },
    );
    expect(Number((left as { n: unknown }[])[0]!.n)).toBe(0);
  });

  test('a try of an event purged meanwhile logs nothing (and does not throw)', async () => {
    await expect(
      recordFailedTry(server.ctx.db.sequelize, {
        eventId: randomUUID(),
        attempt: 1,
        at: clock.now(),
        error: 'sample',
      }),
    ).resolves.toBeUndefined();
  });
});
