import { randomUUID } from 'node:crypto';
import { configureResponse, errorBody } from '@svc/shared';
import { DIALECTS } from '../test/dialects.js';
import { discoverySuite } from '../test/discovery-suite.js';
import type { TestClient } from '../test/http-client.js';
import { createOrganization, seededOrganizationId, signedInAt } from '../test/org-fixtures.js';
import { createTerminalClient } from './terminal-client.js';

/**
 * Issue 32, item 3, as an attack: an administrator of organization 2 configures a keyless
 * terminal that organization 1 configured. Refused, with nothing of organization 1 in the
 * answer; organization 1's token keeps working, its terminal stays in its list and its audit
 * log shows the attempt. A superadmin may configure it, and it stays organization 1's.
 */
describe.each(DIALECTS)('terminals stay with their organization on %s', (dialect) => {
  let org1: string;
  let org2: string;
  let org1Name: string;
  let admin1: TestClient;
  let admin2: TestClient;
  let superadmin: TestClient;

  const suite = discoverySuite(dialect, {
    infra: { terminalClient: createTerminalClient(800) },
  });
  beforeAll(async () => {
    const { server } = suite;
    org1 = await seededOrganizationId(server);
    org1Name = (await server.ctx.models.Organization.findByPk(org1))!.name;
    org2 = await createOrganization(server, `Second ${randomUUID().slice(0, 6)}`);
    admin1 = await signedInAt(server, org1, 'admin');
    admin2 = await signedInAt(server, org2, 'admin');
    superadmin = await signedInAt(server, org2, 'superadmin');
  });

  const terminal = (id: string) => suite.terminal({ id, kind: 'enrollment' });
  const listed = async (client: TestClient) =>
    ((await client.get('/api/discovery/nodes')).body as { id: string }[]).map((n) => n.id);
  const nodeOrg = async (id: string) =>
    (await suite.server.ctx.models.DiscoveredNode.findByPk(id))?.organizationId;
  const configure = (client: TestClient, id: string) =>
    client.post('/api/discovery/configure', { ids: [id], centralUrl: suite.server.url });

  test("another organization's administrator cannot take the terminal over", async () => {
    const id = `ENR-ORG-${dialect}`;
    const t = await terminal(id);
    // Unclaimed: both organizations see it.
    expect(await listed(admin2)).toContain(id);
    const first = configureResponse.parse((await configure(admin1, id)).body).results[0];
    expect(first?.ok).toBe(true);
    const tokenHash = (await suite.server.ctx.models.DiscoveredNode.findByPk(id))?.tokenHash;
    expect(tokenHash).toEqual(expect.any(String));
    expect(await nodeOrg(id)).toBe(org1);

    const attack = await configure(admin2, id);
    expect(attack.status).toBe(403);
    const error = errorBody.parse(attack.body).error;
    expect(error.code).toBe('terminal_other_organization');
    expect(error.params).toEqual({ terminalIds: id });
    const text = JSON.stringify(attack.body);
    expect(text).not.toContain(org1);
    expect(text).not.toContain(org1Name);

    // Nothing moved: same token on the terminal and accepted, same organization, same lists.
    expect((await suite.server.ctx.models.DiscoveredNode.findByPk(id))?.tokenHash).toBe(tokenHash);
    expect((await t.checkinNow())?.status).toBe(200);
    expect(await nodeOrg(id)).toBe(org1);
    expect(await listed(admin1)).toContain(id);
    expect(await listed(admin2)).not.toContain(id);
    const moved = await admin2.post(`/api/discovery/nodes/${id}/address`, {
      address: '127.0.0.1',
    });
    expect(moved.status).toBe(403);

    // Organization 1's audit log shows the attempts, without the other organization's names.
    const seen = await suite.server.ctx.models.Audit.findAll({
      where: { action: 'discovery.configure', outcome: 'denied', organizationId: org1 },
    });
    expect(seen.length).toBeGreaterThanOrEqual(2);
    for (const row of seen) expect(row.actorId).toBeNull();
    expect(
      await suite.server.ctx.models.Audit.count({
        where: { action: 'discovery.configure', outcome: 'denied', organizationId: org2 },
      }),
    ).toBeGreaterThanOrEqual(2);
  });

  test("a superadmin configures it and it stays organization 1's, audited there", async () => {
    const id = `ENR-SUP-${dialect}`;
    await terminal(id);
    expect(configureResponse.parse((await configure(admin1, id)).body).results[0]?.ok).toBe(true);
    const result = configureResponse.parse((await configure(superadmin, id)).body).results[0];
    expect(result?.ok).toBe(true);
    expect(await nodeOrg(id)).toBe(org1);
    expect(await listed(admin1)).toContain(id);
    expect(await listed(superadmin)).toContain(id);
    const last = await suite.server.ctx.models.Audit.findOne({
      where: { action: 'discovery.configure', targetId: id },
      order: [['id', 'DESC']],
    });
    expect(last?.organizationId).toBe(org1);
    expect(last?.outcome).toBe('success');
  });
});
