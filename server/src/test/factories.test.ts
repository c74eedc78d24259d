import { DIALECTS } from './dialects.js';
import { factories } from './factories.js';
import { suiteServer } from './suite.js';
import { TestClient } from './http-client.js';
import { SIGNED_IN_PASSWORD } from './admins.js';
import { until, waitFor } from './wait.js';

describe.each(DIALECTS)('test factories on %s', (dialect) => {
  let build: ReturnType<typeof factories>;

  const suite = suiteServer(dialect);
  beforeAll(() => {
    build = factories(suite.server);
  });

  test('buildPerson({}) makes the organization it needs; two people, two organizations', async () => {
    const a = await build.buildPerson({});
    const b = await build.buildPerson({});
    expect(a.organizationId).not.toBe(b.organizationId);
    expect(await suite.server.ctx.models.Organization.findByPk(a.organizationId)).not.toBeNull();
    expect(a.nameKey).toBe(a.name.toLowerCase());
  });

  test('a named parent decides the organization, and access rows follow the spaces', async () => {
    const org = await build.buildOrganization();
    const site = await build.buildSpace({ organizationId: org.id });
    const floor = await build.buildSpace({ parentId: site.id });
    expect(floor.organizationId).toBe(org.id);
    const person = await build.buildPerson({ spaceIds: [site.id, floor.id] });
    expect(person.organizationId).toBe(org.id);
    expect(
      await suite.server.ctx.models.PersonSpace.count({ where: { personId: person.id } }),
    ).toBe(2);
    const device = await build.buildDevice({ spaceId: floor.id });
    expect(device).toMatchObject({ organizationId: org.id, spaceId: floor.id });
  });

  test('buildDevice({}) makes its space and organization; spaceId null puts it in none', async () => {
    const device = await build.buildDevice({});
    const space = await suite.server.ctx.models.Space.findByPk(device.spaceId!);
    expect(space?.organizationId).toBe(device.organizationId);
    expect((await build.buildDevice({ spaceId: null })).spaceId).toBeNull();
  });

  test('buildAdministrator signs in with the tests’ password', async () => {
    const admin = await build.buildAdministrator({ role: 'operator' });
    const client = new TestClient(suite.server.url);
    expect((await client.login(admin.username, SIGNED_IN_PASSWORD)).status).toBe(200);
  });
});

describe('waitFor', () => {
  test('resolves with the first value that passes', async () => {
    let n = 0;
    expect(
      await waitFor(
        () => ++n,
        (v) => v >= 3,
        { everyMs: 1 },
      ),
    ).toBe(3);
  });

  test('names what it waited for and what it saw last', async () => {
    await expect(until('the door opens', () => false, 30)).rejects.toThrow(
      'the door opens not met within 30 ms; last seen: false',
    );
  });

  test('a throw ends the wait, unless errors are tolerated', async () => {
    const failing = () => {
      throw new Error('refused');
    };
    await expect(waitFor(failing, Boolean, 1_000)).rejects.toThrow('refused');
    let n = 0;
    const flaky = () => {
      if (++n < 3) throw new Error('refused');
      return n;
    };
    expect(await waitFor(flaky, Boolean, { tolerateErrors: true, everyMs: 1 })).toBe(3);
  });
});
