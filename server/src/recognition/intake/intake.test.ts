import { createHash, randomUUID } from 'node:crypto';
import { MAX_SNAPSHOT_BYTES } from '@svc/shared';
import sharp from 'sharp';
import type { DeviceHandle, TerminalHandle } from '@svc/sim';
import { DIALECTS } from '../../test/dialects.js';
import { suiteServer } from '../../test/suite.js';
import { errorCode, type TestClient } from '../../test/http-client.js';
import { signedIn } from '../../test/admins.js';
import { recognitionEventOut } from '../schemas.js';
import {
  createPerson,
  createSpace,
  displayStatus,
  postEvent,
  simulatedDevice,
  simulatedDisplay,
} from '../../test/recognition.js';
import { waitFor } from '../../test/wait.js';

describe.each(DIALECTS)('recognition intake on %s', (dialect) => {
  let admin: TestClient;
  let display: TerminalHandle;
  const devices: DeviceHandle[] = [];

  const suite = suiteServer(dialect);
  beforeAll(async () => {
    admin = await signedIn(suite.server, 'admin');
    const panel = await simulatedDisplay();
    display = panel.display;
    const superadmin = await signedIn(suite.server, 'superadmin');
    expect(
      (await superadmin.post('/api/panel/route', { mode: 'local', url: panel.url })).status,
    ).toBe(200);
  });
  afterAll(async () => {
    await Promise.all(devices.map((d) => d.stop()));
    await display?.stop();
  });

  const device = async (spaceId?: string) => {
    const d = await simulatedDevice(suite.server, admin, spaceId ? { spaceId } : {});
    devices.push(d.device);
    return d;
  };
  const record = async (id: string) => {
    const reply = await admin.get(`/api/recognition/events/${id}`);
    expect(reply.status).toBe(200);
    return recognitionEventOut.strict().parse(reply.body);
  };

  test('an event reaches the display with the same person, device and time as the central record', async () => {
    const space = await createSpace(admin);
    const person = await createPerson(admin);
    const gate = await device(space.id);
    const sent = await gate.device.emitEvent({ personId: person.id, withSnapshot: true });
    expect(sent.status).toBe(202);
    const { id } = sent.body as { id: string };

    const central = await record(id);
    expect(central).toMatchObject({
      eventId: sent.eventId,
      time: sent.event.time,
      score: sent.event.score,
      person: { id: person.id, name: person.name },
      device: { id: gate.id, sn: gate.sn, name: gate.name },
      space: { id: space.id, name: space.name },
    });
    const status = await waitFor(
      () => displayStatus(display),
      (s) => s.lastEvent?.eventId === sent.eventId,
    );
    expect(status.lastEvent).toEqual({
      eventId: central.eventId,
      time: central.time,
      score: central.score,
      person: central.person,
      device: { sn: central.device.sn, name: central.device.name },
      space: central.space,
    });
    const delivered = await waitFor(
      () => record(id),
      (r) => r.delivery.state === 'delivered',
    );
    expect(delivered.delivery).toMatchObject({ attempts: 1, error: null });

    // The snapshot is stored as sent, and served back.
    expect(central.snapshotUrl).toBe(`/api/recognition/events/${id}/snapshot`);
    const snap = await admin.get(central.snapshotUrl!);
    expect(snap.status).toBe(200);
    expect(snap.headers.get('content-type')).toMatch(/^image\/jpeg/);
    const row = await suite.server.ctx.models.RecognitionEvent.findByPk(id);
    const stored = await suite.server.ctx.photos.read(row!.snapshotSha256!);
    expect(createHash('sha256').update(stored!).digest('hex')).toBe(row!.snapshotSha256);
    expect(stored!.length).toBe(sent.event.snapshotBytes);

    // Renaming later does not rewrite history.
    expect(
      (
        await admin.request('PATCH', `/api/people/${person.id}`, {
          body: { name: 'Renamed Sample' },
          csrf: true,
        })
      ).status,
    ).toBe(200);
    expect((await record(id)).person).toEqual({ id: person.id, name: person.name });
  });

  test('the same eventId twice (and concurrently) is one record with one id', async () => {
    const gate = await device();
    const first = await gate.device.emitEvent({ personId: null });
    expect(first.status).toBe(202);
    const again = await gate.device.resendEvent(first.eventId);
    expect(again.status).toBe(200);
    expect(again.body).toEqual(first.body);
    expect(
      await suite.server.ctx.models.RecognitionEvent.count({ where: { eventId: first.eventId } }),
    ).toBe(1);

    const body = {
      eventId: randomUUID(),
      sn: gate.sn,
      personId: null,
      score: 0.5,
      time: new Date().toISOString(),
    };
    const replies = await Promise.all(
      Array.from({ length: 6 }, () => postEvent(suite.server, gate.key, body)),
    );
    const ids = await Promise.all(
      replies.map(async (r) => ((await r.json()) as { id: string }).id),
    );
    expect(replies.map((r) => r.status).sort()).toEqual([200, 200, 200, 200, 200, 202]);
    expect(new Set(ids).size).toBe(1);
    expect(
      await suite.server.ctx.models.RecognitionEvent.count({ where: { eventId: body.eventId } }),
    ).toBe(1);
  });

  test('device credentials: wrong key 401, another device’s key 401, disabled 403', async () => {
    const gate = await device();
    const other = await device();
    const body = (sn: string) => ({
      eventId: randomUUID(),
      sn,
      personId: null,
      score: 0.3,
      time: new Date().toISOString(),
    });
    expect((await postEvent(suite.server, 'W'.repeat(43), body(gate.sn))).status).toBe(401);
    expect((await postEvent(suite.server, other.key, body(gate.sn))).status).toBe(401);
    const noKey = await fetch(`${suite.server.url}/api/recognition/events`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(body(gate.sn)),
    });
    expect(noKey.status).toBe(401);
    expect(
      (
        await admin.request('PATCH', `/api/devices/${gate.id}`, {
          body: { enabled: false },
          csrf: true,
        })
      ).status,
    ).toBe(200);
    const disabled = await postEvent(suite.server, gate.key, body(gate.sn));
    expect(disabled.status).toBe(403);
    expect(
      await suite.server.ctx.models.RecognitionEvent.count({ where: { deviceSn: gate.sn } }),
    ).toBe(0);
  });

  test('snapshots: over 512 KiB → 413, not a JPEG → 400, a PNG → 400; nothing recorded', async () => {
    const gate = await device();
    const event = (snapshot: string) => ({
      eventId: randomUUID(),
      sn: gate.sn,
      personId: null,
      score: 0.3,
      time: new Date().toISOString(),
      snapshot,
    });
    const big = Buffer.alloc(MAX_SNAPSHOT_BYTES + 1, 0xff);
    big[1] = 0xd8;
    const oversize = await postEvent(suite.server, gate.key, event(big.toString('base64')));
    expect(oversize.status).toBe(413);
    const text = await postEvent(
      suite.server,
      gate.key,
      event(Buffer.from('not a picture at all').toString('base64')),
    );
    expect(text.status).toBe(400);
    expect(((await text.json()) as { error: { code: string } }).error.code).toBe('invalid_image');
    const fakeJpeg = Buffer.concat([Buffer.from([0xff, 0xd8, 0xff, 0xe0]), Buffer.alloc(64, 7)]);
    expect(
      (await postEvent(suite.server, gate.key, event(fakeJpeg.toString('base64')))).status,
    ).toBe(400);
    const png = await sharp({ create: { width: 8, height: 8, channels: 3, background: '#888' } })
      .png()
      .toBuffer();
    expect((await postEvent(suite.server, gate.key, event(png.toString('base64')))).status).toBe(
      400,
    );
    expect(
      await suite.server.ctx.models.RecognitionEvent.count({ where: { deviceSn: gate.sn } }),
    ).toBe(0);
    // A bad body is a §0 error, not a 500.
    const bad = await postEvent(suite.server, gate.key, { ...event(''), score: 3 });
    expect(bad.status).toBe(400);
  });

  test('a stranger and an unknown person id are recorded without a person', async () => {
    const gate = await device();
    const stranger = await gate.device.emitEvent({ personId: null });
    const unknown = await gate.device.emitEvent({ personId: randomUUID() });
    const foreignId = await gate.device.emitEvent({ personId: 'x'.repeat(64) });
    for (const sent of [stranger, unknown, foreignId]) {
      expect(sent.status).toBe(202);
      const r = await record((sent.body as { id: string }).id);
      expect(r.person).toBeNull();
      expect(r.space).toBeNull();
      expect(r.snapshotUrl).toBeNull();
    }
    expect(errorCode(await admin.get(`/api/recognition/events/${randomUUID()}/snapshot`))).toBe(
      'not_found',
    );
  });
});
