import { startDevice, type DeviceHandle } from '@svc/sim';
import { deviceOut, deviceWithKey, panelRoute } from '@svc/shared';
import { loadConfig } from '../platform/config/config.js';
import { signedIn } from '../test/admins.js';
import { DIALECTS } from '../test/dialects.js';
import { suiteServer } from '../test/suite.js';
import { errorCode, type Reply } from '../test/http-client.js';

/** `http://user:pw@host:port/…` from a plain URL (the credentials are made up here). */
const withUserinfo = (url: string, userinfo: string) => url.replace('://', `://${userinfo}@`);
const USERINFOS = ['door:hunter2', 'door', ':hunter2', 'd%40or:p%3Aw'];

/**
 * Issue 20, finding 9: URLs the central service stores and shows to every administrator
 * (operators included) never carry `user:password@`, for a simulated device and the panel route.
 */
describe.each(DIALECTS)('credentials in stored URLs on %s', (dialect) => {
  let sim: DeviceHandle;

  const suite = suiteServer(dialect);
  beforeAll(async () => {
    sim = await startDevice({
      sn: `CRED-${dialect}`,
      bindAddress: '127.0.0.1',
      httpPort: 0,
      heartbeatIntervalMs: 0,
    });
  });
  afterAll(async () => {
    await sim.stop();
  });

  const refused = (reply: Reply, field: string) => {
    expect([reply.status, errorCode(reply)]).toEqual([400, 'invalid_input']);
    expect((reply.body as { error: { fields: Record<string, string> } }).error.fields).toEqual({
      [field]: expect.stringContaining('user:password@'),
    });
  };

  test('a device base URL with credentials is refused on registration and on change', async () => {
    const admin = await signedIn(suite.server, 'admin');
    for (const userinfo of USERINFOS) {
      const reply = await admin.post('/api/devices', {
        sn: sim.sn,
        name: 'Door',
        baseUrl: withUserinfo(sim.url, userinfo),
      });
      refused(reply, 'baseUrl');
    }
    expect(await suite.server.ctx.models.Device.count()).toBe(0);

    const created = await admin.post('/api/devices', {
      sn: sim.sn,
      name: 'Door',
      baseUrl: sim.url,
    });
    expect(created.status).toBe(201);
    const { id } = deviceWithKey.parse(created.body);
    const patched = await admin.request('PATCH', `/api/devices/${id}`, {
      body: { baseUrl: withUserinfo(sim.url, 'door:hunter2') },
      csrf: true,
    });
    refused(patched, 'baseUrl');
    const operator = await signedIn(suite.server, 'operator');
    expect(deviceOut.parse((await operator.get(`/api/devices/${id}`)).body).baseUrl).toBe(sim.url);
  });

  test('a panel route with credentials is refused, and the saved route stays', async () => {
    const admin = await signedIn(suite.server, 'superadmin');
    const url = 'https://panel.example/api/recognition';
    expect((await admin.post('/api/panel/route', { mode: 'cloud', url })).status).toBe(200);
    for (const userinfo of USERINFOS) {
      refused(
        await admin.post('/api/panel/route', { mode: 'cloud', url: withUserinfo(url, userinfo) }),
        'url',
      );
    }
    expect(panelRoute.parse((await admin.get('/api/panel/route')).body)).toEqual({
      mode: 'cloud',
      url,
    });
  });

  test('PANEL_URL with credentials is refused at boot', () => {
    expect(() => loadConfig({ PANEL_URL: 'http://panel:hunter2@10.0.0.5:8181/' })).toThrow(
      /PANEL_URL.*user:password@/s,
    );
  });
});
