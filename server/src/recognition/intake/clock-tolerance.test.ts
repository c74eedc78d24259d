import { randomUUID } from 'node:crypto';
import { deviceOut, deviceWithKey, recognitionEventList, recognitionEventOut } from '@svc/shared';
import { ManualClock } from '../../platform/clock.js';
import { EVENT_TIME_TOLERANCE_MS } from '../../devices/clock.js';
import { signedIn } from '../../test/admins.js';
import { DIALECTS } from '../../test/dialects.js';
import { suiteServer } from '../../test/suite.js';
import type { TestClient } from '../../test/http-client.js';
import { purgeOldEvents } from '../events/retention.js';
import { postEvent } from '../../test/recognition.js';

const DAY = 24 * 60 * 60_000;
const EPOCH = '1970-01-01T00:00:00.000Z';
const FAR = '2099-01-01T00:00:00.000Z';

/**
 * Issue 32, item 6, as an attack: a device dates its events 1970 (to backdate them into the
 * next purge) and 2099 (to keep them past every purge, and on top of every list). Beyond a
 * day from the central service's clock, the device's time is kept only as reported; order and
 * retention go by the receive time; the event is flagged and the device's drift shows.
 */
describe.each(DIALECTS)('device clocks out of tolerance on %s', (dialect) => {
  let admin: TestClient;
  const clock = new ManualClock(new Date());

  const suite = suiteServer(dialect, { clock });
  beforeAll(async () => {
    admin = await signedIn(suite.server, 'admin');
  });

  async function registered() {
    const sn = `CLK-${randomUUID().slice(0, 8)}`;
    const reply = await admin.post('/api/devices', {
      sn,
      name: `Gate ${sn}`,
      baseUrl: 'http://127.0.0.1:9',
    });
    expect(reply.status).toBe(201);
    return deviceWithKey.parse(reply.body);
  }
  async function event(gate: { sn: string; key: string }, time: string) {
    const eventId = randomUUID();
    const posted = await postEvent(suite.server, gate.key, {
      eventId,
      sn: gate.sn,
      personId: null,
      score: 0.5,
      time,
    });
    expect(posted.status).toBe(202);
    const { id } = (await posted.json()) as { id: string };
    const read = await admin.get(`/api/recognition/events/${id}`);
    expect(read.status).toBe(200);
    return recognitionEventOut.parse(read.body);
  }

  test("the device's drift shows on the device, with a warning", async () => {
    const gate = await registered();
    await event(gate, FAR);
    const device = deviceOut.parse((await admin.get(`/api/devices/${gate.id}`)).body);
    expect(device.clock.driftMs).toBeGreaterThan(EVENT_TIME_TOLERANCE_MS);
    expect(device.warnings.map((w) => w.code)).toContain('clock_drift');
  });

  test('just inside the tolerance the device is believed; just outside it is not', async () => {
    const gate = await registered();
    const now = clock.now().getTime();
    const inside = await event(gate, new Date(now - EVENT_TIME_TOLERANCE_MS + 1_000).toISOString());
    const outside = await event(
      gate,
      new Date(now + EVENT_TIME_TOLERANCE_MS + 1_000).toISOString(),
    );
    expect(inside.reportedTime).toBeNull();
    expect(outside.reportedTime).not.toBeNull();
    expect(outside.time).toBe(new Date(now).toISOString());
  });

  // Last: it moves the clock a day on (sessions would expire).
  test('1970 and 2099 are kept as reported; order and retention use the receive time', async () => {
    const gate = await registered();
    const received = clock.now().toISOString();
    const past = await event(gate, EPOCH);
    const future = await event(gate, FAR);
    clock.advance(60_000);
    const honest = await event(gate, new Date(clock.now().getTime() - 2 * 3_600_000).toISOString());

    expect([past.time, past.reportedTime]).toEqual([received, EPOCH]);
    expect([future.time, future.reportedTime]).toEqual([received, FAR]);
    // Within the tolerance the device's time is the event's time, unflagged.
    expect(honest.reportedTime).toBeNull();
    expect(Date.parse(honest.receivedAt) - Date.parse(honest.time)).toBe(2 * 3_600_000);

    // Newest first by the time we trust: 2099 does not sit on top of the list.
    const list = recognitionEventList.parse(
      (await admin.get(`/api/recognition/events?sn=${gate.sn}`)).body,
    );
    const order = list.items.map((i) => i.id);
    expect(order.slice(0, 2).sort()).toEqual([past.id, future.id].sort());
    expect(order[2]).toBe(honest.id);

    // A day's retention: the 1970 event is not purged at once, the 2099 one is purged in time.
    const set = await admin.post('/api/recognition/retention', { days: 1 });
    expect(set.status).toBe(200);
    await purgeOldEvents(suite.server.ctx);
    const ids = async () =>
      (
        await suite.server.ctx.models.RecognitionEvent.findAll({ where: { deviceSn: gate.sn } })
      ).map((r) => r.id);
    expect((await ids()).sort()).toEqual([past.id, future.id, honest.id].sort());
    clock.advance(DAY + 60_000);
    await purgeOldEvents(suite.server.ctx);
    expect(await ids()).toEqual([]);
  });
});
