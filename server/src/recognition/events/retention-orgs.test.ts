import { randomUUID } from 'node:crypto';
import { deviceWithKey, retentionSetting, settingsOut } from '@svc/shared';
import { DIALECTS } from '../../test/dialects.js';
import { suiteServer } from '../../test/suite.js';
import type { TestClient } from '../../test/http-client.js';
import { createOrganization, seededOrganizationId, signedInAt } from '../../test/org-fixtures.js';
import { purgeOldEvents } from './retention.js';
import { postEvent } from '../../test/recognition.js';

const DAY = 24 * 3_600_000;

/**
 * Issue 32, item 2, as an attack: an administrator of organization 2 shortens the event
 * retention to one day. Organization 1's events must stay (they follow organization 1's own
 * setting), and the change is audited in the organization it affects.
 */
describe.each(DIALECTS)('event retention per organization on %s', (dialect) => {
  let org1: string;
  let org2: string;
  let admin1: TestClient;
  let admin2: TestClient;
  let superadmin: TestClient;

  const suite = suiteServer(dialect);
  beforeAll(async () => {
    org1 = await seededOrganizationId(suite.server);
    org2 = await createOrganization(suite.server, `Second ${randomUUID().slice(0, 6)}`);
    admin1 = await signedInAt(suite.server, org1, 'admin');
    admin2 = await signedInAt(suite.server, org2, 'admin');
    superadmin = await signedInAt(suite.server, org1, 'superadmin');
  });

  /** An event `ageDays` old from a device of `admin`'s organization; returns its eventId. */
  async function eventOf(admin: TestClient, ageDays: number): Promise<string> {
    const sn = `RET-${randomUUID().slice(0, 8)}`;
    const reply = await admin.post('/api/devices', {
      sn,
      name: `Gate ${sn}`,
      baseUrl: 'http://127.0.0.1:9',
    });
    expect(reply.status).toBe(201);
    const { key } = deviceWithKey.parse(reply.body);
    const eventId = randomUUID();
    const posted = await postEvent(suite.server, key, {
      eventId,
      sn,
      personId: null,
      score: 0.2,
      time: new Date().toISOString(),
    });
    expect(posted.status).toBe(202);
    // Aged in the table: a device's time further than a day off is not believed at intake.
    await suite.server.ctx.models.RecognitionEvent.update(
      { time: new Date(Date.now() - ageDays * DAY) },
      { where: { eventId } },
    );
    return eventId;
  }
  const exists = async (eventId: string) =>
    (await suite.server.ctx.models.RecognitionEvent.count({ where: { eventId } })) === 1;
  const retentionAudits = (organizationId: string) =>
    suite.server.ctx.models.Audit.count({
      where: { action: 'recognition.retention_change', organizationId },
    });

  test("organization 2's one day purges its own old events, never organization 1's", async () => {
    const old1 = await eventOf(admin1, 3);
    const old2 = await eventOf(admin2, 3);
    const recent2 = await eventOf(admin2, 0);

    const set = await admin2.post('/api/recognition/retention', { days: 1 });
    expect(set.status).toBe(200);
    expect(retentionSetting.parse(set.body)).toEqual({ days: 1, organizationId: org2 });
    expect(settingsOut.parse((await admin1.get('/api/settings')).body).eventRetentionDays).toBe(90);
    expect(settingsOut.parse((await admin2.get('/api/settings')).body).eventRetentionDays).toBe(1);

    await purgeOldEvents(suite.server.ctx);
    expect(await exists(old1)).toBe(true);
    expect(await exists(old2)).toBe(false);
    expect(await exists(recent2)).toBe(true);
    expect(await retentionAudits(org2)).toBe(1);
    expect(await retentionAudits(org1)).toBe(0);
  });

  test("an administrator cannot name another organization's retention; a superadmin can, audited there", async () => {
    const before = await retentionAudits(org1);
    const refused = await admin2.post('/api/recognition/retention', {
      days: 1,
      organizationId: org1,
    });
    expect(refused.status).toBe(404);
    expect(JSON.stringify(refused.body)).not.toContain(org1);
    expect((await admin2.get(`/api/recognition/retention?organizationId=${org1}`)).status).toBe(
      404,
    );
    expect(await retentionAudits(org1)).toBe(before);

    const bySuperadmin = await superadmin.post('/api/recognition/retention', {
      days: 30,
      organizationId: org2,
    });
    expect(bySuperadmin.status).toBe(200);
    const readBack = await admin2.get('/api/recognition/retention');
    expect(retentionSetting.parse(readBack.body)).toEqual({ days: 30, organizationId: org2 });
    const audit = await suite.server.ctx.models.Audit.findOne({
      where: { action: 'recognition.retention_change', organizationId: org2 },
      order: [['id', 'DESC']],
    });
    expect(audit?.summary).toBe('recognition retention 1 → 30 days');
    // Organization 1's own setting was never touched.
    expect(retentionSetting.parse((await admin1.get('/api/recognition/retention')).body).days).toBe(
      90,
    );
  });
});
