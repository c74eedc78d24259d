import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createTerminalClient } from '../clients/terminal-client.js';
import { setLanguage } from '../i18n.js';
import { centralHealth } from '../texts.js';
import { FakeClock } from '../../testing/fake-clock.js';
import type { TerminalEntry } from '../terminal-directory.js';
import { Workbench } from '../workbench.js';

/**
 * A push's failures carry the code and values they came with (the central service's
 * `errorDetail` and error codes; a terminal's answer on a direct push, by the same codes), and
 * the console words them from its catalogs: never a server's or a terminal's English sentence.
 */

const listen = async (server: Server) => {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return (server.address() as AddressInfo).port;
};

/** The central service's answers to a configure, by the terminal pushed. */
function stubCentral(ids: string[]): Server {
  return createServer((req, res) => {
    let body = '';
    req.on('data', (c: Buffer) => (body += c.toString()));
    req.on('end', () => {
      const json = (status: number, value: unknown, cookie?: string) => {
        res.writeHead(status, {
          'content-type': 'application/json',
          ...(cookie && { 'set-cookie': cookie }),
        });
        res.end(JSON.stringify(value));
      };
      const now = new Date().toISOString();
      if (req.url === '/api/heartbeat') {
        return json(200, {
          state: 1,
          service: 'svc',
          time: now,
          responseTimeMs: 1,
          version: '0.1.0',
          uptimeSeconds: 1,
          database: { state: 'up', dialect: 'sqlite' },
          workers: {},
          warnings: [],
        });
      }
      if (req.url === '/api/auth/csrf') return json(200, { token: 'csrf-token-for-this-test' });
      if (req.url === '/api/auth/login') {
        return json(
          200,
          {
            user: {
              id: 'a1',
              username: 'tess',
              displayName: 'Tess',
              role: 'admin',
              organizationId: 'o1',
              mustChangePassword: false,
            },
          },
          'sid=session-for-this-test; HttpOnly',
        );
      }
      if (req.url === '/api/discovery/nodes') {
        return json(
          200,
          ids.map((id) => ({
            id,
            kind: 'enrollment',
            name: id,
            model: 'm',
            version: '1',
            address: '10.0.0.9',
            port: 8182,
            configUrl: 'http://10.0.0.9:8182/api/config',
            central: '',
            lastSeen: now,
            lastCheckin: null,
            online: true,
            conflict: null,
          })),
        );
      }
      if (req.url === '/api/discovery/configure') {
        const id = (JSON.parse(body) as { ids: string[] }).ids[0];
        if (id === 'ENR-TWICE') {
          return json(409, {
            error: {
              code: 'conflict',
              message:
                'Terminal ENR-TWICE is claimed from two addresses: 10.0.0.9:8182 (accepted) and 10.0.0.10:8182. Choose the real terminal\'s address in "addresses" (nothing was sent).',
            },
          });
        }
        if (id === 'ENR-OTHER') {
          return json(403, {
            error: {
              code: 'terminal_other_organization',
              message:
                'Terminal ENR-OTHER is managed by another organization: only its administrators or a superadmin may configure it. Nothing was pushed.',
              params: { terminalIds: 'ENR-OTHER' },
            },
          });
        }
        if (id === 'ENR-FAIL') {
          return json(500, { error: { code: 'internal_error', message: 'Internal error.' } });
        }
        return json(200, {
          results: [
            {
              id,
              ok: false,
              error: 'the terminal at 10.0.0.9:8182 answered HTTP 500',
              errorDetail: {
                code: 'terminal_http_status',
                params: { where: '10.0.0.9:8182', status: 500 },
                message: 'the terminal at 10.0.0.9:8182 answered HTTP 500',
              },
            },
          ],
        });
      }
      json(404, { error: { code: 'not_found', message: 'Not found.' } });
    });
  });
}

const entry = (id: string, port: number): TerminalEntry => ({
  id,
  kind: 'enrollment',
  name: id,
  model: null,
  version: null,
  address: '127.0.0.1',
  port,
  sourcePort: 1,
  configUrl: `http://127.0.0.1:${port}/api/config`,
  central: '',
  firstSeen: '2026-11-28T00:00:00.000Z',
  lastSeen: '2026-11-28T00:00:00.000Z',
  announces: 1,
  conflict: null,
});

describe('push failures by code and values', () => {
  const ids = ['ENR-TWICE', 'ENR-OTHER', 'ENR-FAIL', 'ENR-DET'];
  let central: Server;
  let keyed: Server;
  let url: string;
  let keyedPort: number;
  let closedPort: number;
  beforeAll(async () => {
    central = stubCentral(ids);
    url = `http://127.0.0.1:${await listen(central)}`;
    // A terminal with a management key: 401 to anyone without it.
    keyed = createServer((_req, res) => {
      res.writeHead(401, { 'content-type': 'application/json' });
      res.end('{"error":{"code":"unauthorized","message":"Management key required."}}');
    });
    keyedPort = await listen(keyed);
    const closed = createServer();
    closedPort = await listen(closed);
    await new Promise((resolve) => closed.close(resolve));
  });
  afterAll(async () => {
    await setLanguage('en');
    for (const s of [central, keyed]) await new Promise((resolve) => s.close(resolve));
  });

  const bench = () =>
    new Workbench({
      clock: new FakeClock(),
      terminalClient: createTerminalClient(1_000),
      terminals: () => [
        ...ids.map((id) => entry(id, 8182)),
        entry('ENR-KEYED', keyedPort),
        entry('ENR-GONE', closedPort),
      ],
      release: '0.1.0',
      checkinTimeoutMs: 0,
    });

  /** The pushes' failures: the saved step's words and code, by terminal. */
  async function failures(lng: 'en' | 'zh-CN') {
    await setLanguage(lng);
    const wb = bench();
    await wb.setCentral(url);
    await wb.signIn('tess', 'a password for this test');
    const through = await wb.push({ ids, centralUrl: url });
    const direct = await wb.push({ ids: ['ENR-KEYED', 'ENR-GONE'], centralUrl: url, direct: true });
    const header = await wb.centralState();
    return {
      saved: Object.fromEntries(
        [...through, ...direct].map((r) => [
          r.id,
          { detail: r.saved.detail, code: r.saved.errorDetail },
        ]),
      ),
      header,
    };
  }

  it('each failure carries its code and values', async () => {
    const { saved } = await failures('en');
    expect(saved['ENR-TWICE']!.code).toMatchObject({
      code: 'conflict',
      params: { id: 'ENR-TWICE' },
    });
    expect(saved['ENR-OTHER']!.code).toMatchObject({
      code: 'terminal_other_organization',
      params: { terminalIds: 'ENR-OTHER', status: 403 },
    });
    expect(saved['ENR-FAIL']!.code).toMatchObject({
      code: 'internal_error',
      params: { status: 500 },
    });
    expect(saved['ENR-DET']!.code).toMatchObject({
      code: 'terminal_http_status',
      params: { where: '10.0.0.9:8182', status: 500 },
    });
    // A direct push: what the terminal answered, by the central service's codes.
    expect(saved['ENR-KEYED']!.code).toEqual({
      code: 'terminal_key_needed',
      params: { where: `127.0.0.1:${keyedPort}` },
      message: `the terminal at 127.0.0.1:${keyedPort} has a management key; enter it to push (401)`,
    });
    // Kept as said: "management key: enter" once read as a credential and lost a word.
    expect(saved['ENR-KEYED']!.detail).toBe(
      `the terminal at 127.0.0.1:${keyedPort} has a management key; enter it to push (401)`,
    );
    expect(saved['ENR-GONE']!.code).toMatchObject({
      code: 'terminal_unreachable',
      params: { where: `127.0.0.1:${closedPort}`, cause: 'ECONNREFUSED' },
    });
    expect(saved['ENR-TWICE']!.detail).toBe(
      "refused by the central service: the central service hears ENR-TWICE from two addresses and sends its address to neither until someone chooses the real terminal's: choose it in the site's System Configuration (terminals), or stop the copy, then push again. Nothing was pushed",
    );
    for (const { detail } of Object.values(saved)) {
      expect(detail).not.toMatch(/Internal error\.|managed by another|"addresses"|Management key/);
    }
  });

  it('in Chinese (zh-CN) no server or terminal English reaches the technician', async () => {
    const { saved, header } = await failures('zh-CN');
    expect(saved['ENR-TWICE']!.detail).toMatch(
      /^中心服务拒绝了下发：中心服务从两个地址收到了 ENR-TWICE 的广播/,
    );
    expect(saved['ENR-OTHER']!.detail).toBe(
      '中心服务拒绝了下发：此终端属于其他组织，只有该组织或超级管理员可以配置（HTTP 403）。未下发任何内容',
    );
    expect(saved['ENR-FAIL']!.detail).toMatch(/^中心服务未能下发到此终端：服务器出错/);
    expect(saved['ENR-DET']!.detail).toBe(
      '中心服务未能下发到此终端：10.0.0.9:8182 的终端应答 HTTP 500',
    );
    expect(saved['ENR-KEYED']!.detail).toBe(
      `127.0.0.1:${keyedPort} 的终端设有管理密钥：请输入密钥后再下发（401）`,
    );
    expect(saved['ENR-GONE']!.detail).toBe(`连接被拒绝（127.0.0.1:${closedPort}）`);
    for (const { detail } of Object.values(saved)) {
      const english = detail
        .replace(/ENR-\w+|HTTP|\d+\.\d+\.\d+\.\d+:\d+/g, '')
        .match(/[A-Za-z]{3,}/g);
      expect(english).toBeNull();
    }
    // The conflict's words are the console's own, kept as said (they name the terminal).
    expect(header.refusal).toMatchObject({ reason: expect.stringContaining('ENR-TWICE') });
  });

  it('the header says the last refusal from its code, in the language read now', async () => {
    await setLanguage('zh-CN');
    const wb = bench();
    await wb.setCentral(url);
    await wb.signIn('tess', 'a password for this test');
    await wb.push({ ids: ['ENR-OTHER'], centralUrl: url });
    const state = await wb.centralState();
    expect(state.refusal?.code).toBe('terminal_other_organization');
    expect(centralHealth(state).text).toMatch(/被拒绝：此终端属于其他组织/);
    await setLanguage('en');
    expect(centralHealth(state).text).toMatch(
      /refused: This terminal belongs to another organization; only it or a super administrator may configure it$/,
    );
  });
});
