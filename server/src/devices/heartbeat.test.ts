import { deviceOut, deviceWithKey, errorBody, onlineCount, serverTimeResponse } from '@svc/shared';
import { startDevice } from '@svc/sim';
import { ManualClock } from '../platform/clock.js';
import { DIALECTS } from '../test/dialects.js';
import { secondOrganization } from '../test/factories.js';
import { suiteServer, withServer } from '../test/suite.js';
import { TestClient } from '../test/http-client.js';
import { signedIn } from '../test/admins.js';

const TIMEOUT_S = 30;
let serial = 0;

describe.each(DIALECTS)('device heartbeat and online count on %s', (dialect) => {
  const clock = new ManualClock();
  let admin: TestClient;
  let otherAdmin: TestClient;
  let superadmin: TestClient;

  const register = async (client: TestClient = admin) => {
    const reply = await client.post('/api/devices', {
      sn: `HB-${dialect}-${++serial}`,
      name: `Turnstile ${serial}`,
      baseUrl: 'http://10.20.0.60:8190',
    });
    expect(reply.status).toBe(201);
    return deviceWithKey.parse(reply.body);
  };
  const beat = (sn: string, key?: string, url = suite.server.url) =>
    fetch(`${url}/api/device/heartbeat`, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        ...(key !== undefined && { authorization: `Bearer ${key}` }),
      },
      body: JSON.stringify({ sn }),
    });
  const count = async (client: TestClient) => {
    const reply = await client.get('/api/device/online-count');
    expect(reply.status).toBe(200);
    return onlineCount.strict().parse(reply.body).count;
  };

  const suite = suiteServer(dialect, { clock, env: { HEARTBEAT_TIMEOUT: String(TIMEOUT_S) } });
  beforeAll(async () => {
    const { server } = suite;
    expect(server.ctx.config.heartbeatTimeoutS).toBe(TIMEOUT_S);
    admin = await signedIn(server, 'admin');
    superadmin = await signedIn(server, 'superadmin');
    const otherOrgId = await secondOrganization(server, 'Second organization');
    otherAdmin = await signedIn(server, 'admin', undefined, otherOrgId);
  });

  test('a heartbeat needs the key of the device with that serial: 401 otherwise, 403 when disabled', async () => {
    const device = await register();
    const other = await register();

    const cases: [string, Response, number][] = [
      ['no key', await beat(device.sn), 401],
      ['unknown key', await beat(device.sn, 'A'.repeat(43)), 401],
      ['another device’s key', await beat(device.sn, other.key), 401],
      ['unknown serial', await beat('NO-SUCH-SN', device.key), 401],
      ['another serial', await beat(other.sn, device.key), 401],
    ];
    for (const [what, res, status] of cases) {
      expect([what, res.status]).toEqual([what, status]);
      expect(errorBody.parse(await res.json()).error.code).toBe('unauthorized');
    }
    expect((await suite.server.ctx.models.Device.findByPk(device.id))!.lastHeartbeatAt).toBeNull();
    const invalid = await beat('has space', device.key);
    expect(invalid.status).toBe(400);

    const auditBefore = await suite.server.ctx.models.Audit.count();
    const ok = await beat(device.sn, device.key);
    expect(ok.status).toBe(200);
    expect(serverTimeResponse.strict().parse(await ok.json())).toEqual({
      serverTime: clock.now().toISOString(),
    });
    const row = await suite.server.ctx.models.Device.findByPk(device.id);
    expect(row!.lastHeartbeatAt!.toISOString()).toBe(clock.now().toISOString());
    expect(await suite.server.ctx.models.Audit.count()).toBe(auditBefore);

    await admin.request('PATCH', `/api/devices/${device.id}`, {
      body: { enabled: false },
      csrf: true,
    });
    const disabled = await beat(device.sn, device.key);
    expect(disabled.status).toBe(403);
    expect(errorBody.parse(await disabled.json()).error.code).toBe('forbidden');
  });

  test('online count: enabled devices heard from within HEARTBEAT_TIMEOUT, by the service clock', async () => {
    // Nothing from earlier tests may still be online.
    clock.advance((TIMEOUT_S + 1) * 1000);
    expect(await count(superadmin)).toBe(0);
    const a = await register();
    const b = await register();
    expect(await count(admin)).toBe(0);

    expect((await beat(a.sn, a.key)).status).toBe(200);
    expect(await count(admin)).toBe(1);
    clock.advance(10_000);
    expect((await beat(b.sn, b.key)).status).toBe(200);
    expect(await count(admin)).toBe(2);

    // Exactly HEARTBEAT_TIMEOUT old is still online; a millisecond more is not.
    clock.advance((TIMEOUT_S - 10) * 1000);
    expect(await count(admin)).toBe(2);
    expect(deviceOut.parse((await admin.get(`/api/devices/${a.id}`)).body).online).toBe(true);
    clock.advance(1);
    expect(await count(admin)).toBe(1);
    expect(deviceOut.parse((await admin.get(`/api/devices/${a.id}`)).body).online).toBe(false);

    // A fresh heartbeat brings it back; disabling takes it out at once.
    expect((await beat(a.sn, a.key)).status).toBe(200);
    expect(await count(admin)).toBe(2);
    const off = await admin.request('PATCH', `/api/devices/${b.id}`, {
      body: { enabled: false },
      csrf: true,
    });
    expect(off.status).toBe(200);
    expect(deviceOut.parse(off.body).online).toBe(false);
    expect(await count(admin)).toBe(1);
  });

  test('a signed-in administrator counts their organization; a superadmin and a trusted client count all', async () => {
    clock.advance((TIMEOUT_S + 1) * 1000);
    const mine = await register(admin);
    const theirs = await register(otherAdmin);
    expect((await beat(mine.sn, mine.key)).status).toBe(200);
    expect((await beat(theirs.sn, theirs.key)).status).toBe(200);
    expect(await count(admin)).toBe(1);
    expect(await count(otherAdmin)).toBe(1);
    expect(await count(superadmin)).toBe(2);
    // The test client is on 127.0.0.1, inside the default TRUSTED_NETWORKS.
    expect(await count(new TestClient(suite.server.url))).toBe(2);
  });

  test('a simulated device’s own heartbeat makes it online', async () => {
    clock.advance((TIMEOUT_S + 1) * 1000);
    const sim = await startDevice({
      sn: `SIM-${dialect}-${++serial}`,
      bindAddress: '127.0.0.1',
      heartbeatIntervalMs: 0,
    });
    try {
      const reply = await admin.post('/api/devices', {
        sn: sim.sn,
        name: 'Simulated gate',
        baseUrl: sim.url,
      });
      const device = deviceWithKey.parse(reply.body);
      await sim.setConnection({ key: device.key, centralUrl: suite.server.url });
      const sent = await sim.heartbeatNow();
      expect(sent?.status).toBe(200);
      expect(await count(admin)).toBe(1);
    } finally {
      await sim.stop();
    }
  });

  test('outside TRUSTED_NETWORKS the online count needs a session', async () => {
    const env = { HEARTBEAT_TIMEOUT: String(TIMEOUT_S), TRUSTED_NETWORKS: '192.0.2.0/24' };
    await withServer(suite.scratch, { clock, env }, async (untrusted) => {
      const anonymous = await new TestClient(untrusted.url).get('/api/device/online-count');
      expect(anonymous.status).toBe(401);
      expect(errorBody.parse(anonymous.body).error.code).toBe('unauthorized');
      const session = await signedIn(untrusted, 'admin');
      expect((await session.get('/api/device/online-count')).status).toBe(200);
      // Heartbeats are the device's own credential, not the network's.
      const device = await register();
      expect((await beat(device.sn, device.key, untrusted.url)).status).toBe(200);
    });
  });
});
