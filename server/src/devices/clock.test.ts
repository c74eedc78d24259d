import { startDevice, type DeviceHandle } from '@svc/sim';
import {
  deviceOut,
  deviceWithKey,
  heartbeatResponse,
  recognitionEventList,
  type DeviceOut,
} from '@svc/shared';
import { signedIn } from '../test/admins.js';
import { DeviceClocks } from './clock.js';
import { DIALECTS } from '../test/dialects.js';
import { suiteServer } from '../test/suite.js';
import type { TestClient } from '../test/http-client.js';
import { waitFor } from '../test/wait.js';

const HOUR = 3_600_000;
/** Loopback round trips: the measured drift is the offset within this. */
const SLACK = 5_000;

/**
 * Issue 20, finding 10: a device's clock can say anything (1970, 2099). Its times are kept as
 * evidence, our receive time next to them, and its drift is measured and warned about.
 */
describe.each(DIALECTS)('device clock drift on %s', (dialect) => {
  let admin: TestClient;
  const sims: DeviceHandle[] = [];

  const suite = suiteServer(dialect);
  beforeAll(async () => {
    admin = await signedIn(suite.server, 'admin');
  });
  afterAll(async () => {
    for (const s of sims) await s.stop();
  });

  async function device(sn: string, clockOffsetMs: number) {
    const sim = await startDevice({
      sn,
      bindAddress: '127.0.0.1',
      httpPort: 0,
      heartbeatIntervalMs: 0,
      clockOffsetMs,
    });
    sims.push(sim);
    const reply = await admin.post('/api/devices', { sn, name: sn, baseUrl: sim.url });
    const { id, key } = deviceWithKey.parse(reply.body);
    await sim.setConnection({ key, centralUrl: suite.server.url });
    return { id, sim, key };
  }
  const read = async (id: string): Promise<DeviceOut> =>
    deviceOut.parse((await admin.get(`/api/devices/${id}`)).body);
  const heartbeatWarnings = async () =>
    heartbeatResponse.parse((await admin.get('/api/heartbeat')).body).warnings.join('\n');

  test('a heartbeat an hour behind is a warning on the device and in the heartbeat, until fixed', async () => {
    const { id, sim } = await device('CLOCK-SLOW', -HOUR);
    expect((await sim.heartbeatNow())?.status).toBe(200);
    const slow = await read(id);
    expect(slow.clock.source).toBe('heartbeat');
    expect(Math.abs(slow.clock.driftMs! + HOUR)).toBeLessThan(SLACK);
    expect(slow.lastHeartbeatAt).toBe(slow.clock.checkedAt);
    expect(slow.warnings).toEqual([
      {
        code: 'clock_drift',
        params: { sn: 'CLOCK-SLOW', driftMs: slow.clock.driftMs },
        message: expect.stringContaining('3600 s behind'),
      },
    ]);
    expect(await heartbeatWarnings()).toMatch(/CLOCK-SLOW \(3600 s behind\)/);
    // The heartbeat's details: the code and values a client words (issue #34).
    const details = heartbeatResponse
      .parse((await admin.get('/api/heartbeat')).body)
      .warningDetails!.find((w) => w.code === 'clock_drift_devices');
    expect(details?.params).toMatchObject({ limitS: 60 });
    expect(String(details?.params.devices)).toContain('CLOCK-SLOW');
    // Another process (one that did not receive the heartbeat) learns it from the database.
    const elsewhere = new DeviceClocks(suite.server.ctx);
    await elsewhere.refresh();
    expect(
      elsewhere
        .warnings()
        .map((w) => w.message)
        .join('\n'),
    ).toMatch(/CLOCK-SLOW \(3600 s behind\)/);

    sim.setClockOffset(0);
    expect((await sim.heartbeatNow())?.status).toBe(200);
    const fixed = await read(id);
    expect(Math.abs(fixed.clock.driftMs!)).toBeLessThan(SLACK);
    expect(fixed.warnings).toEqual([]);
    expect(await heartbeatWarnings()).not.toMatch(/CLOCK-SLOW/);
    await elsewhere.refresh();
    expect(
      elsewhere
        .warnings()
        .map((w) => w.message)
        .join('\n'),
    ).not.toMatch(/CLOCK-SLOW/);
  });

  test('an event stamped in 2099 is kept as reported, dated when received, and measures the drift', async () => {
    const ahead = Date.parse('2099-01-01T00:00:00.000Z') - Date.now();
    const { id, sim } = await device('CLOCK-2099', ahead);
    const before = Date.now();
    const sent = await sim.emitEvent({ personId: null });
    expect(sent.status).toBe(202);
    const record = await suite.server.ctx.models.RecognitionEvent.findOne({
      where: { eventId: sent.eventId },
    });
    // Beyond a day from the central clock the device's time is kept only as reported
    // (recognition/clock-tolerance.test.ts): the event is dated when it was received.
    expect(record!.reportedTime?.toISOString()).toBe(sent.event.time);
    expect(record!.reportedTime?.getUTCFullYear()).toBe(2099);
    expect(record!.time.getTime()).toBe(record!.receivedAt.getTime());
    expect(record!.receivedAt.getTime()).toBeGreaterThanOrEqual(before);
    expect(record!.receivedAt.getTime()).toBeLessThanOrEqual(Date.now());

    const measured = await waitFor(
      () => read(id),
      (d) => d.clock.source === 'event',
    );
    expect(Math.abs(measured.clock.driftMs! - ahead)).toBeLessThan(SLACK);
    expect(measured.warnings.map((w) => w.code)).toEqual(['clock_drift']);
    expect(measured.warnings[0]!.message).toMatch(/days ahead of/);
    expect(await heartbeatWarnings()).toMatch(/CLOCK-2099 \(\d+ days ahead of\)/);

    // A heartbeat's measure is the better one: events do not overwrite it while it is recent.
    sim.setClockOffset(0);
    expect((await sim.heartbeatNow())?.status).toBe(200);
    sim.setClockOffset(ahead);
    expect((await sim.emitEvent({ personId: null })).status).toBe(202);
    const kept = await read(id);
    expect(kept.clock.source).toBe('heartbeat');
    expect(kept.warnings).toEqual([]);
  });

  test('an event stamped at the 1970 epoch (a reset clock) is kept as reported, dated when received, and measures the drift', async () => {
    const behind = 0 - Date.now(); // the device's clock reads 1970-01-01T00:00:00.000Z
    const { id, sim } = await device('CLOCK-1970', behind);
    const before = Date.now();
    const sent = await sim.emitEvent({ personId: null });
    expect(sent.status).toBe(202);
    expect(Date.parse(sent.event.time)).toBeLessThan(SLACK); // the sim really stamped 1970
    const record = await suite.server.ctx.models.RecognitionEvent.findOne({
      where: { eventId: sent.eventId },
    });
    expect(record!.reportedTime?.toISOString()).toBe(sent.event.time);
    expect(record!.reportedTime?.getUTCFullYear()).toBe(1970);
    expect(record!.time.getTime()).toBe(record!.receivedAt.getTime());
    expect(record!.receivedAt.getTime()).toBeGreaterThanOrEqual(before);
    expect(record!.receivedAt.getTime()).toBeLessThanOrEqual(Date.now());
    // The site lists it with both times, as reported and as received.
    const listed = recognitionEventList.parse(
      (await admin.get(`/api/recognition/events?deviceId=${id}`)).body,
    );
    expect(listed.items.map((e) => [e.reportedTime, Date.parse(e.receivedAt) >= before])).toEqual([
      [sent.event.time, true],
    ]);

    const measured = await waitFor(
      () => read(id),
      (d) => d.clock.source === 'event',
    );
    expect(Math.abs(measured.clock.driftMs! - behind)).toBeLessThan(SLACK);
    expect(measured.warnings.map((w) => w.code)).toEqual(['clock_drift']);
    expect(measured.warnings[0]!.message).toMatch(/\d+ days behind/);
    expect(await heartbeatWarnings()).toMatch(/CLOCK-1970 \(\d+ days behind\)/);
  });

  test('a device just added, never heard, has no clock and no clock warning', async () => {
    const sim = await startDevice({ sn: 'CLOCK-NEW', bindAddress: '127.0.0.1', httpPort: 0 });
    sims.push(sim);
    const created = await admin.post('/api/devices', {
      sn: 'CLOCK-NEW',
      name: 'CLOCK-NEW',
      baseUrl: sim.url,
    });
    expect(created.status).toBe(201);
    expect(deviceWithKey.parse(created.body)).toMatchObject({
      clock: { driftMs: null, checkedAt: null, source: null },
      warnings: [],
    });
  });

  test('a heartbeat without time (as before) is still accepted and measures nothing', async () => {
    const { id, key } = await device('CLOCK-NONE', 0);
    const reply = await fetch(`${suite.server.url}/api/device/heartbeat`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${key}` },
      body: JSON.stringify({ sn: 'CLOCK-NONE' }),
    });
    expect(reply.status).toBe(200);
    expect((await read(id)).clock).toEqual({ driftMs: null, checkedAt: null, source: null });
  });
});
