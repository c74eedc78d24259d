import type { TerminalHandle } from '@svc/sim';
import { configureResponse, discoveryNode, discoveryNodeList } from '@svc/shared';
import { Agent, request } from 'undici';
import { ManualClock } from '../../platform/clock.js';
import { plainJpeg } from '../../test/images.js';
import { signedIn } from '../../test/admins.js';
import { DIALECTS } from '../../test/dialects.js';
import { discoverySuite } from '../../test/discovery-suite.js';
import { TestClient, errorCode } from '../../test/http-client.js';
import { createTerminalClient, type TerminalClient } from '../terminal-client.js';
import { waitFor } from '../../test/wait.js';

/** The impostor's own loopback address: another host on the LAN, as far as the server sees. */
const IMPOSTOR_IP = '127.0.0.2';

/**
 * Issue 20, finding 1: one announce reusing an online terminal's id must not move it, and a
 * terminal token works only from the address it was pushed to.
 */
describe.each(DIALECTS)('terminal identity on %s', (dialect) => {
  const clock = new ManualClock(new Date());
  /** Every config push the server made: where it went and the token it carried. */
  const pushes: { base: string; token: string }[] = [];
  const impostorAgent = new Agent({ localAddress: IMPOSTOR_IP });
  const real = createTerminalClient(2_000);
  const recording: TerminalClient = {
    push: (base, body) => {
      pushes.push({ base, token: body.token ?? '' });
      return real.push(base, body);
    },
    read: (base) => real.read(base),
  };
  const suite = discoverySuite(dialect, { clock, infra: { terminalClient: recording } });
  afterAll(() => impostorAgent.close());

  /** A terminal at `bindAddress`; the node list may show another one under its id. */
  const terminal = (id: string, bindAddress: string) =>
    suite.terminal({ id, kind: 'enrollment', bindAddress, listed: false });

  const nodes = async () =>
    discoveryNodeList.parse(
      (await new TestClient(suite.server.url).get('/api/discovery/nodes')).body,
    );
  const nodeOf = async (id: string) => (await nodes()).find((n) => n.id === id);

  /** A POST from the impostor's address (undici's own fetch binds the local address). */
  const fromImpostor = async (path: string, token: string, body: unknown) => {
    const res = await request(`${suite.server.url}${path}`, {
      method: 'POST',
      dispatcher: impostorAgent,
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
    return { status: res.statusCode, body: await res.body.json() };
  };
  const fromHere = (path: string, token: string, body: unknown) =>
    new TestClient(suite.server.url, { authorization: `Bearer ${token}` }).post(path, body, {
      csrf: false,
    });

  /** T announces and is configured: its token, as the suite.server pushed it. */
  async function configured(id: string): Promise<{ t: TerminalHandle; token: string }> {
    const t = await terminal(id, '127.0.0.1');
    await waitFor(
      () => nodeOf(id),
      (n) => n !== undefined,
    );
    const admin = await signedIn(suite.server, 'admin');
    const reply = await admin.post('/api/discovery/configure', {
      ids: [id],
      centralUrl: suite.server.url,
    });
    expect(configureResponse.parse(reply.body).results[0]).toMatchObject({ ok: true });
    const token = pushes.at(-1)!.token;
    expect(pushes.at(-1)!.base).toBe(t.url);
    return { t, token };
  }

  test('an impostor announcing T’s id gets a conflict, never T’s address, token or enrollment', async () => {
    const { t, token } = await configured('ENR-T');
    const admin = await signedIn(suite.server, 'admin');

    const impostor = await terminal('ENR-T', IMPOSTOR_IP);
    await impostor.announceNow();
    const seen = await waitFor(
      () => nodeOf('ENR-T'),
      (n) => n?.conflict !== null,
    );
    expect(seen).toMatchObject({
      address: '127.0.0.1',
      port: t.port,
      conflict: { address: IMPOSTOR_IP, port: impostor.port },
    });
    expect(Date.parse(seen!.conflict!.lastHeard)).toBeGreaterThanOrEqual(
      Date.parse(seen!.conflict!.firstHeard),
    );
    const conflicts = await suite.server.ctx.models.Audit.findAll({
      where: { action: 'discovery.conflict', targetId: 'ENR-T', ip: IMPOSTOR_IP },
    });
    expect(conflicts).toHaveLength(1);
    // By code and values too, for the site to word (issue 34).
    expect(JSON.parse(conflicts[0]!.summaryMessage!)).toEqual({
      code: 'terminal_conflict',
      params: { id: 'ENR-T', address: `${IMPOSTOR_IP}:${impostor.port}` },
    });

    // T announcing again keeps its place, and the conflict stays while the impostor is heard.
    await t.announceNow();
    await impostor.announceNow();
    await suite.server.ctx.discovery.worker!.flushNow();
    expect(await nodeOf('ENR-T')).toMatchObject({ address: '127.0.0.1', port: t.port });

    const pushesBefore = pushes.length;
    const refused = await admin.post('/api/discovery/configure', {
      ids: ['ENR-T'],
      centralUrl: suite.server.url,
    });
    expect(refused.status).toBe(409);
    expect(errorCode(refused)).toBe('conflict');
    expect(JSON.stringify(refused.body)).toContain(`${IMPOSTOR_IP}:${impostor.port}`);
    expect(pushes.length).toBe(pushesBefore);

    // With the administrator's choice, the token goes to T and only to T.
    const chosen = await admin.post('/api/discovery/configure', {
      ids: ['ENR-T'],
      centralUrl: suite.server.url,
      addresses: { 'ENR-T': '127.0.0.1' },
    });
    expect(configureResponse.parse(chosen.body).results[0]).toMatchObject({ ok: true });
    const fresh = pushes.at(-1)!.token;
    expect(pushes.slice(pushesBefore).map((p) => p.base)).toEqual([t.url]);
    expect(pushes.some((p) => p.base === impostor.url)).toBe(false);
    expect(impostor.state().hasToken).toBe(false);
    expect(t.config().centralUrl).toBe(suite.server.url);

    // A token works only from the address it was pushed to: T's old and new one alike.
    const person = {
      name: 'Mallory',
      idNumber: 'TAKEOVER-1',
      photo: (await plainJpeg(640, 480)).toString('base64'),
    };
    for (const stolen of [token, fresh]) {
      expect((await fromImpostor('/api/enrollment/persons', stolen, person)).status).toBe(401);
      expect(
        (await fromImpostor('/api/terminal/checkin', stolen, { id: 'ENR-T', kind: 'enrollment' }))
          .status,
      ).toBe(401);
    }
    expect(await suite.server.ctx.models.Person.count({ where: { idNumber: 'TAKEOVER-1' } })).toBe(
      0,
    );
    // The old token was replaced; the fresh one works from T's address.
    expect(
      (await fromHere('/api/terminal/checkin', token, { id: 'ENR-T', kind: 'enrollment' })).status,
    ).toBe(401);
    expect(
      (await fromHere('/api/terminal/checkin', fresh, { id: 'ENR-T', kind: 'enrollment' })).status,
    ).toBe(200);
    expect(
      (await fromHere('/api/enrollment/persons', fresh, { ...person, name: 'Trent' })).status,
    ).toBe(201);
  });

  test('a terminal whose old address is silent for DISCOVERY_TIMEOUT moves, and its token stays behind', async () => {
    const { token } = await configured('ENR-DHCP');
    const moved = await terminal('ENR-DHCP', IMPOSTOR_IP);
    await moved.announceNow();
    await waitFor(
      () => nodeOf('ENR-DHCP'),
      (n) => n?.conflict !== null,
    );
    clock.advance(46_000);
    await moved.announceNow();
    const now = await waitFor(
      () => nodeOf('ENR-DHCP'),
      (n) => n?.address === IMPOSTOR_IP,
    );
    expect(now).toMatchObject({ port: moved.port, conflict: null });
    const moves = await suite.server.ctx.models.Audit.findAll({
      where: { action: 'discovery.move', targetId: 'ENR-DHCP' },
    });
    expect(moves).toHaveLength(1);
    expect(JSON.parse(moves[0]!.summaryMessage!)).toMatchObject({
      code: 'terminal_moved_itself',
      params: { id: 'ENR-DHCP', from: expect.stringMatching(/^127\.0\.0\.1:\d+$/) },
    });
    const checkin = { id: 'ENR-DHCP', kind: 'enrollment' };
    expect((await fromImpostor('/api/terminal/checkin', token, checkin)).status).toBe(401);
  });

  test('an administrator confirms a move at once; only a heard claimant can be confirmed', async () => {
    const { t } = await configured('ENR-MOVE');
    const admin = await signedIn(suite.server, 'admin');
    const path = '/api/discovery/nodes/ENR-MOVE/address';
    const wrong = await admin.post(path, { address: '127.0.0.9' });
    expect(wrong.status).toBe(409);
    expect(errorCode(wrong)).toBe('conflict');
    expect(
      (await admin.post('/api/discovery/nodes/NOBODY/address', { address: '127.0.0.9' })).status,
    ).toBe(404);
    expect((await admin.post(path, { address: 'not an address' })).status).toBe(400);
    const operator = await signedIn(suite.server, 'operator');
    expect((await operator.post(path, { address: IMPOSTOR_IP })).status).toBe(403);

    const next = await terminal('ENR-MOVE', IMPOSTOR_IP);
    await next.announceNow();
    await waitFor(
      () => nodeOf('ENR-MOVE'),
      (n) => n?.conflict !== null,
    );
    const confirmed = await admin.post(path, { address: `${IMPOSTOR_IP}:${next.port}` });
    expect(confirmed.status).toBe(200);
    expect(discoveryNode.parse(confirmed.body)).toMatchObject({
      address: IMPOSTOR_IP,
      port: next.port,
      conflict: null,
    });
    // The old address is now the claimant; the node stays where the administrator put it.
    await t.announceNow();
    const after = await waitFor(
      () => nodeOf('ENR-MOVE'),
      (n) => n?.conflict !== null,
    );
    expect(after).toMatchObject({
      address: IMPOSTOR_IP,
      conflict: { address: '127.0.0.1', port: t.port },
    });
    expect(
      await suite.server.ctx.models.Audit.count({
        where: { action: 'discovery.move', targetId: 'ENR-MOVE' },
      }),
    ).toBe(1);

    // Configure may choose the claimant too: the node moves back and only T gets the token.
    const unheard = await admin.post('/api/discovery/configure', {
      ids: ['ENR-MOVE'],
      centralUrl: suite.server.url,
      addresses: { 'ENR-MOVE': '127.0.0.9' },
    });
    expect(unheard.status).toBe(409);
    const pushesBefore = pushes.length;
    const back = await admin.post('/api/discovery/configure', {
      ids: ['ENR-MOVE'],
      centralUrl: suite.server.url,
      addresses: { 'ENR-MOVE': `127.0.0.1:${t.port}` },
    });
    expect(configureResponse.parse(back.body).results[0]).toMatchObject({ ok: true });
    expect(pushes.slice(pushesBefore).map((p) => p.base)).toEqual([t.url]);
    expect(await nodeOf('ENR-MOVE')).toMatchObject({ address: '127.0.0.1', port: t.port });
    expect(next.state().hasToken).toBe(false);
  });
});
