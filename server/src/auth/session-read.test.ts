import { ManualClock } from '../platform/clock.js';
import { DIALECTS } from '../test/dialects.js';
import { factories } from '../test/factories.js';
import { suiteServer } from '../test/suite.js';
import { TestClient } from '../test/http-client.js';
import { SIGNED_IN_PASSWORD } from '../test/admins.js';

/**
 * Every request with a session cookie resolves it: that read is on the path of every
 * administrator route, so it is one statement (auth/store.ts) — session, administrator and
 * two-factor enrolment together — and GET /api/auth/me sends nothing more.
 */
describe.each(DIALECTS)('the session read on %s', (dialect) => {
  const clock = new ManualClock(new Date('2026-11-28T12:00:00.000Z'));

  const suite = suiteServer(dialect, { clock });

  async function statementsOf(fn: () => Promise<unknown>): Promise<string[]> {
    const sent: string[] = [];
    const hook = (_options: unknown, query: unknown) => {
      const { sql } = query as { sql?: unknown };
      if (typeof sql === 'string') sent.push(sql);
    };
    suite.server.ctx.db.sequelize.addHook('afterQuery', 'count', hook);
    try {
      await fn();
    } finally {
      suite.server.ctx.db.sequelize.removeHook('afterQuery', 'count');
    }
    return sent;
  }

  test('GET /api/auth/me is one statement, with the administrator as stored', async () => {
    const admin = await factories(suite.server).buildAdministrator({ role: 'operator' });
    const client = new TestClient(suite.server.url);
    expect((await client.login(admin.username, SIGNED_IN_PASSWORD)).status).toBe(200);
    let me: Awaited<ReturnType<TestClient['get']>> | undefined;
    const sent = await statementsOf(async () => (me = await client.get('/api/auth/me')));
    expect(me?.status).toBe(200);
    expect(me?.body).toMatchObject({
      user: { id: admin.id, username: admin.username, role: 'operator', twoFactorEnabled: false },
    });
    expect(sent).toHaveLength(1);
  });

  test('the session read gives the values a model read gives', async () => {
    const admin = await factories(suite.server).buildAdministrator({ role: 'admin' });
    const token = await suite.server.ctx.sessions.create(admin.id, { ip: '192.0.2.4' });
    const read = await suite.server.ctx.sessions.resolve(token, { touch: false });
    if (read.kind !== 'ok') throw new Error(read.kind);
    const stored = await suite.server.ctx.models.Administrator.findByPk(admin.id);
    expect(read.admin.get({ plain: true })).toEqual(stored!.get({ plain: true }));
    const session = await suite.server.ctx.models.Session.findByPk(read.session.id);
    expect(read.session.get({ plain: true })).toEqual(session!.get({ plain: true }));
    // A built instance writes like a read one.
    await read.admin.update({ language: 'zh-CN' });
    expect((await suite.server.ctx.models.Administrator.findByPk(admin.id))!.language).toBe(
      'zh-CN',
    );
  });

  test('an idle session is ended, and a disabled administrator’s', async () => {
    const admin = await factories(suite.server).buildAdministrator({ role: 'admin' });
    const token = await suite.server.ctx.sessions.create(admin.id, {});
    clock.advance(31 * 60_000);
    expect((await suite.server.ctx.sessions.resolve(token)).kind).toBe('expired');
    const again = await suite.server.ctx.sessions.create(admin.id, {});
    await admin.update({ disabled: true });
    expect((await suite.server.ctx.sessions.resolve(again)).kind).toBe('expired');
    expect(
      await suite.server.ctx.models.Session.count({ where: { administratorId: admin.id } }),
    ).toBe(0);
  });
});
