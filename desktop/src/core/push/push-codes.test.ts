import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createTerminalClient } from '../clients/terminal-client.js';
import { setLanguage } from '../i18n.js';
import { centralHealth } from '../texts.js';
import { closedPort } from '../../testing/central-process.js';
import {
  centralNode,
  heardTerminal,
  startCentralStub,
  type CentralStub,
  type StubAnswer,
} from '../../testing/central-stub.js';
import { FakeClock } from '../../testing/fake-clock.js';
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

const refusal = (status: number, code: string, message: string, params?: object) => ({
  status,
  body: { error: { code, message, ...(params && { params }) } },
});

/** The central service's answers to a configure, by the terminal pushed. */
function configureAnswer(id: string | undefined): StubAnswer {
  if (id === 'ENR-TWICE') {
    return refusal(
      409,
      'conflict',
      'Terminal ENR-TWICE is claimed from two addresses: 10.0.0.9:8182 (accepted) and 10.0.0.10:8182. Choose the real terminal\'s address in "addresses" (nothing was sent).',
    );
  }
  if (id === 'ENR-OTHER') {
    return refusal(
      403,
      'terminal_other_organization',
      'Terminal ENR-OTHER is managed by another organization: only its administrators or a superadmin may configure it. Nothing was pushed.',
      { terminalIds: 'ENR-OTHER' },
    );
  }
  if (id === 'ENR-FAIL') return refusal(500, 'internal_error', 'Internal error.');
  return {
    status: 200,
    body: {
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
    },
  };
}

/** The central service: it lists `ids` and answers their configure. */
const stubCentral = (ids: string[]) =>
  startCentralStub(({ url, body }) => {
    if (url === '/api/discovery/nodes')
      return { status: 200, body: ids.map((id) => centralNode(id)) };
    if (url === '/api/discovery/configure') {
      return configureAnswer((JSON.parse(body) as { ids: string[] }).ids[0]);
    }
    return undefined;
  });

describe('push failures by code and values', () => {
  const ids = ['ENR-TWICE', 'ENR-OTHER', 'ENR-FAIL', 'ENR-DET'];
  let central: CentralStub;
  let keyed: Server;
  let url: string;
  let keyedPort: number;
  let gonePort: number;
  beforeAll(async () => {
    central = await stubCentral(ids);
    url = central.url;
    // A terminal with a management key: 401 to anyone without it.
    keyed = createServer((_req, res) => {
      res.writeHead(401, { 'content-type': 'application/json' });
      res.end('{"error":{"code":"unauthorized","message":"Management key required."}}');
    });
    keyedPort = await listen(keyed);
    gonePort = await closedPort();
  });
  afterAll(async () => {
    await setLanguage('en');
    await central.close();
    await new Promise((resolve) => keyed.close(resolve));
  });

  const bench = () =>
    new Workbench({
      clock: new FakeClock(),
      terminalClient: createTerminalClient(1_000),
      terminals: () => [
        ...ids.map((id) => heardTerminal(id, 8182)),
        heardTerminal('ENR-KEYED', keyedPort),
        heardTerminal('ENR-GONE', gonePort),
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
      params: { where: `127.0.0.1:${gonePort}`, cause: 'ECONNREFUSED' },
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
    expect(saved['ENR-GONE']!.detail).toBe(`连接被拒绝（127.0.0.1:${gonePort}）`);
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
