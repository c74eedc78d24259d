import { randomInt, randomUUID } from 'node:crypto';
import sharp from 'sharp';
import type { DeviceHandle } from '@svc/sim';
import { DIALECTS } from '../test/dialects.js';
import { suiteServer } from '../test/suite.js';
import { TestClient } from '../test/http-client.js';
import { signedIn } from '../test/admins.js';
import { purgeOldEvents } from './events/retention.js';
import { openEventStream } from '../test/sse.js';
import { recognitionEventList, recognitionEventOut } from './schemas.js';
import { createPerson, createSpace, postEvent, simulatedDevice } from '../test/recognition.js';

const DAY = 24 * 60 * 60_000;

describe.each(DIALECTS)('recognition API on %s', (dialect) => {
  let admin: TestClient;
  let operator: TestClient;
  let foreignAdmin: TestClient;
  const devices: DeviceHandle[] = [];

  const suite = suiteServer(dialect);
  beforeAll(async () => {
    admin = await signedIn(suite.server, 'admin');
    operator = await signedIn(suite.server, 'operator');
    const orgId = randomUUID();
    const now = suite.server.ctx.clock.now();
    await suite.server.ctx.models.Organization.create({
      id: orgId,
      name: 'Sample Other Org',
      createdAt: now,
      updatedAt: now,
    });
    foreignAdmin = await signedIn(suite.server, 'admin', undefined, orgId);
  });
  afterAll(async () => {
    await Promise.all(devices.map((d) => d.stop()));
  });

  const device = async (client: TestClient, spaceId?: string) => {
    const d = await simulatedDevice(suite.server, client, spaceId ? { spaceId } : {});
    devices.push(d.device);
    return d;
  };
  const list = async (client: TestClient, query: string) => {
    const reply = await client.get(`/api/recognition/events?${query}`);
    expect(reply.status).toBe(200);
    return recognitionEventList.parse(reply.body);
  };

  test('search by person, device (sn, id), space and time; newest first; paged; organization-scoped', async () => {
    const hall = await createSpace(admin);
    const alice = await createPerson(admin);
    const bob = await createPerson(admin);
    const north = await device(admin, hall.id);
    const south = await device(admin);
    // An hour ago: within a day of the server's clock, so the devices' times are believed.
    const t0 = Math.floor(Date.now() / 60_000) * 60_000 - 60 * 60_000;
    const at = (min: number) => new Date(t0 + min * 60_000).toISOString();
    const ids: Record<string, string> = {};
    for (const [name, dev, personId, min] of [
      ['a1', north, alice.id, 0],
      ['b1', north, bob.id, 5],
      ['a2', south, alice.id, 10],
      ['s1', south, null, 15],
    ] as const) {
      const sent = await dev.device.emitEvent({ personId, time: at(min) });
      expect(sent.status).toBe(202);
      ids[name] = (sent.body as { id: string }).id;
    }
    const foreignGate = await device(foreignAdmin);
    const foreignEvent = await foreignGate.device.emitEvent({ personId: null, time: at(20) });
    const foreignId = (foreignEvent.body as { id: string }).id;

    const range = `from=${at(0)}&to=${at(16)}`;
    const all = await list(admin, range);
    expect(all.items.map((i) => i.id)).toEqual([ids.s1, ids.a2, ids.b1, ids.a1]);
    expect(all.total).toBe(4);
    expect((await list(admin, `personId=${alice.id}`)).items.map((i) => i.id)).toEqual([
      ids.a2,
      ids.a1,
    ]);
    expect((await list(admin, `sn=${north.sn}`)).items.map((i) => i.id)).toEqual([ids.b1, ids.a1]);
    expect((await list(admin, `deviceId=${south.id}`)).total).toBe(2);
    expect((await list(admin, `spaceId=${hall.id}`)).total).toBe(2);
    expect((await list(admin, `from=${at(5)}&to=${at(15)}`)).items.map((i) => i.id)).toEqual([
      ids.a2,
      ids.b1,
    ]);
    const page2 = await list(admin, `${range}&page=2&pageSize=3`);
    expect(page2).toMatchObject({ total: 4, items: [{ id: ids.a1 }] });
    // Operators read too.
    expect((await list(operator, range)).total).toBe(4);

    // Another organization's event: not listed, and 404 by id exactly like a missing one.
    expect((await list(admin, `sn=${foreignGate.sn}`)).total).toBe(0);
    const theirs = await admin.get(`/api/recognition/events/${foreignId}`);
    const missing = await admin.get(`/api/recognition/events/${randomUUID()}`);
    expect(theirs.status).toBe(404);
    expect(theirs.body).toEqual(missing.body);
    expect((await admin.get(`/api/recognition/events/${foreignId}/snapshot`)).status).toBe(404);
    expect((await foreignAdmin.get(`/api/recognition/events/${foreignId}`)).status).toBe(200);
    expect((await list(foreignAdmin, '')).items.map((i) => i.id)).toEqual([foreignId]);

    expect((await admin.get('/api/recognition/events?from=yesterday')).status).toBe(400);
    expect((await new TestClient(suite.server.url).get('/api/recognition/events')).status).toBe(
      401,
    );
  });

  test('CSV export: filtered, formula cells neutralized, admins only', async () => {
    const gate = await device(admin);
    const person = await createPerson(admin, '=HYPERLINK("http://example.invalid","x")');
    const sent = await gate.device.emitEvent({ personId: person.id });
    expect(sent.status).toBe(202);
    const reply = await admin.get(`/api/exports/events.csv?sn=${gate.sn}`);
    expect(reply.status).toBe(200);
    expect(reply.headers.get('content-type')).toMatch(/^text\/csv/);
    const lines = (reply.body as string)
      .replace(/^\ufeff/, '')
      .trim()
      .split('\r\n');
    expect(lines).toHaveLength(2);
    expect(lines[0]).toMatch(/^id,eventId,time,/);
    expect(lines[1]).toContain(`"'=HYPERLINK(""http://example.invalid"",""x"")"`);
    expect(lines[1]).toContain(sent.eventId);
    expect((await operator.get('/api/exports/events.csv')).status).toBe(403);
  });

  test('live stream: a new event of the organization arrives as `event: recognition`; other organizations’ do not', async () => {
    const gate = await device(admin);
    const foreignGate = await device(foreignAdmin);
    const stream = await openEventStream(suite.server.url, admin);
    expect(stream.status).toBe(200);
    expect(stream.contentType).toMatch(/^text\/event-stream/);
    const next = () => stream.next();
    expect(await next()).toBe(': connected');
    await foreignGate.device.emitEvent({ personId: null });
    const sent = await gate.device.emitEvent({ personId: null, withSnapshot: true });
    let block = await next();
    while (!block.startsWith('event: recognition')) block = await next();
    stream.close();
    const data = recognitionEventOut.parse(JSON.parse(block.split('\ndata: ')[1]!));
    // The first recognition event seen is ours: the other organization's was not relayed.
    expect(data).toMatchObject({
      id: (sent.body as { id: string }).id,
      eventId: sent.eventId,
      device: { sn: gate.sn },
      person: null,
    });
    expect(data.snapshotUrl).not.toBeNull();
    expect((await new TestClient(suite.server.url).get('/api/recognition/stream')).status).toBe(
      401,
    );
  });

  test('retention: default 90 days, admins change it (audited), the purge removes old events and their snapshots', async () => {
    expect((await operator.get('/api/recognition/retention')).body).toMatchObject({ days: 90 });
    expect((await operator.post('/api/recognition/retention', { days: 5 })).status).toBe(403);
    expect((await admin.post('/api/recognition/retention', { days: 0 })).status).toBe(400);
    expect((await admin.post('/api/recognition/retention', { days: 7 })).status).toBe(200);
    expect((await admin.get('/api/recognition/retention')).body).toMatchObject({ days: 7 });
    expect(
      await suite.server.ctx.models.Audit.count({
        where: { action: 'recognition.retention_change' },
      }),
    ).toBe(1);

    const gate = await device(admin);
    const now = Date.now();
    // A snapshot of its own (the simulator's placeholder is the same for every event).
    const unique = await sharp({
      create: {
        width: 64,
        height: 64,
        channels: 3,
        background: { r: 10, g: 200, b: randomInt(256) },
      },
    })
      .jpeg({ quality: randomInt(50, 95) })
      .toBuffer();
    const oldEventId = randomUUID();
    const posted = await postEvent(suite.server, gate.key, {
      eventId: oldEventId,
      sn: gate.sn,
      personId: null,
      score: 0.2,
      time: new Date(now).toISOString(),
      snapshot: unique.toString('base64'),
    });
    expect(posted.status).toBe(202);
    const recent = await gate.device.emitEvent({
      personId: null,
      time: new Date(now).toISOString(),
    });
    // Aged in the table: a device's time further than a day off is not believed at intake.
    const age = (eventId: string, days: number) =>
      suite.server.ctx.models.RecognitionEvent.update(
        { time: new Date(now - days * DAY) },
        { where: { eventId } },
      );
    await age(oldEventId, 8);
    await age(recent.eventId, 6);
    const oldRow = await suite.server.ctx.models.RecognitionEvent.findOne({
      where: { eventId: oldEventId },
    });
    const sha = oldRow!.snapshotSha256!;
    expect(await suite.server.ctx.photos.read(sha)).toEqual(unique);

    expect(await purgeOldEvents(suite.server.ctx)).toBeGreaterThanOrEqual(1);
    expect(
      await suite.server.ctx.models.RecognitionEvent.count({ where: { eventId: oldEventId } }),
    ).toBe(0);
    expect(
      await suite.server.ctx.models.RecognitionEvent.count({ where: { eventId: recent.eventId } }),
    ).toBe(1);
    expect(await suite.server.ctx.photos.read(sha)).toBeUndefined();
    expect(await suite.server.ctx.models.File.findByPk(sha)).toBeNull();
    await admin.post('/api/recognition/retention', { days: 90 });
  });
});
