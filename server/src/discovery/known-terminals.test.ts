import { randomUUID } from 'node:crypto';
import { knownTerminalList, type AnnounceDatagram } from '@svc/shared';
import { ManualClock } from '../platform/clock.js';
import { DIALECTS } from '../test/dialects.js';
import { suiteServer } from '../test/suite.js';
import type { TestServer } from '../test/harness.js';
import type { TestClient } from '../test/http-client.js';
import { createOrganization, seededOrganizationId, signedInAt } from '../test/org-fixtures.js';

/**
 * Issue 30, item 10: System Configuration keeps terminals that went offline, with how long ago
 * each was heard, until an administrator removes them.
 */
describe.each(DIALECTS)('terminals kept after they go offline, on %s', (dialect) => {
  let server: TestServer;
  let admin: TestClient;
  let operator: TestClient;
  let other: string;
  const clock = new ManualClock(new Date('2026-11-28T09:00:00Z'));
  const tag = randomUUID().slice(0, 6).toUpperCase();

  const suite = suiteServer(dialect, {
    clock,
    env: { SVC_DISCOVERY_WORKER: '0', DISCOVERY_TIMEOUT: '45' },
  });
  beforeAll(async () => {
    server = suite.server;
    const own = await seededOrganizationId(server);
    other = await createOrganization(server, `Elsewhere ${tag}`);
    admin = await signedInAt(server, own, 'admin');
    operator = await signedInAt(server, own, 'operator');
  });

  const hear = async (id: string, kind: 'enrollment' | 'display' = 'enrollment') => {
    const announce: AnnounceDatagram = {
      svc: 'discovery',
      v: 1,
      type: 'announce',
      id,
      kind,
      port: 8182,
    };
    server.ctx.discovery.store.record(announce, '192.0.2.77', clock.now());
    await server.ctx.discovery.store.flush();
  };
  const terminals = async (client: TestClient) => {
    const reply = await client.get('/api/discovery/terminals');
    expect(reply.status).toBe(200);
    return knownTerminalList.parse(reply.body).items.filter((t) => t.id.endsWith(tag));
  };

  test('a silent terminal stays listed as offline with the seconds since it was heard, until removed', async () => {
    const gone = `ENR-GONE-${tag}`;
    const theirs = `DSP-THEIRS-${tag}`;
    await hear(gone);
    await hear(theirs, 'display');
    await server.ctx.discovery.store.setToken(theirs, randomUUID(), other);
    expect(await terminals(admin)).toMatchObject([{ id: gone, online: true, silentS: 0 }]);

    clock.advance(50_000);
    const offline = await terminals(operator);
    expect(offline).toMatchObject([
      { id: gone, online: false, silentS: 50, lastSeen: '2026-11-28T09:00:00.000Z' },
    ]);
    // The protocol's list of terminals heard is unchanged: online ones only.
    const heard = (await admin.get('/api/discovery/nodes')).body as { id: string }[];
    expect(heard.map((n) => n.id)).not.toContain(gone);

    // Removing: an administrator's; another organization's terminal is not found; an online one
    // is refused, since it would be back within seconds.
    expect(
      (await operator.request('DELETE', `/api/discovery/nodes/${gone}`, { csrf: true })).status,
    ).toBe(403);
    expect(
      (await admin.request('DELETE', `/api/discovery/nodes/${theirs}`, { csrf: true })).status,
    ).toBe(404);
    expect(await server.ctx.models.DiscoveredNode.findByPk(theirs)).not.toBeNull();
    const live = `ENR-LIVE-${tag}`;
    await hear(live);
    const refused = await admin.request('DELETE', `/api/discovery/nodes/${live}`, { csrf: true });
    expect(refused.status).toBe(409);
    expect(JSON.stringify(refused.body)).toMatch(/still heard/);

    expect(
      (await admin.request('DELETE', `/api/discovery/nodes/${gone}`, { csrf: true })).status,
    ).toBe(204);
    expect((await terminals(admin)).map((t) => t.id)).toEqual([live]);
    expect(await server.ctx.models.DiscoveredNode.findByPk(gone)).toBeNull();
    expect(
      await server.ctx.models.Audit.count({
        where: { action: 'discovery.remove', targetId: gone },
      }),
    ).toBe(1);

    // Heard again: listed again, online.
    await hear(gone);
    expect((await terminals(admin)).map((t) => [t.id, t.online])).toEqual([
      [gone, true],
      [live, true],
    ]);
  });
});
