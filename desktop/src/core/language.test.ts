import { mkdtempSync, rmSync } from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { SessionStore } from './acceptance/session-store.js';
import { createConsoleService } from './console-service.js';
import { diagnose, SILENCE_MS, type DiagnosticFacts } from './diagnostics/diagnostics.js';
import { setLanguage, t } from './i18n.js';
import { createIpcHandlers, IPC_CHANNELS } from './ipc.js';
import type { TerminalDirectory } from './terminal-directory.js';

/** A directory stand-in: listening, nothing heard. */
const directory: Pick<
  TerminalDirectory,
  'list' | 'centrals' | 'dropCounts' | 'status' | 'probe' | 'onChange' | 'start'
> = {
  list: () => [],
  centrals: () => [],
  dropCounts: () => ({
    oversize: 0,
    not_json: 0,
    not_object: 0,
    wrong_service: 0,
    unknown_version: 0,
    unknown_type: 0,
    bad_field: 0,
  }),
  status: () => ({ listening: true, local: null, lastError: null }),
  probe: () => Promise.resolve([]),
  onChange: () => () => undefined,
  start: () => Promise.resolve(),
};

const silent: DiagnosticFacts = {
  port: 20785,
  listening: true,
  lastError: null,
  holders: [],
  ownPid: 1,
  interfaces: [],
  expectedAddress: null,
  routed: [],
  notHeard: null,
  conflicts: [],
  gone: [],
  listeningSince: 0,
  lastHeardAt: null,
  now: SILENCE_MS + 5_000,
  platform: 'linux',
  productName: null,
};

async function closedPort(): Promise<number> {
  const server = net.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as net.AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

describe('the console in Simplified Chinese and English', () => {
  let dir: string;
  beforeEach(() => {
    dir = mkdtempSync(path.join(os.tmpdir(), 'svc-language-'));
  });
  afterEach(async () => {
    await setLanguage('en');
    rmSync(dir, { recursive: true, force: true });
  });

  it('translates a finding and keeps its commands as commands', async () => {
    await setLanguage('zh-CN');
    const [finding] = diagnose(silent);
    expect(finding?.title).toBe('所有网络接口在 65 秒内均未在 UDP 20785 上收到任何数据');
    const advice = finding?.advice.join('\n') ?? '';
    expect(advice).toContain('允许 UDP 20785 入站');
    // The commands a technician types stay exactly as the system wants them.
    expect(advice).toContain('sudo ufw allow 20785/udp');
    expect(advice).toContain('sudo firewall-cmd --add-port=20785/udp');
    await setLanguage('en');
    expect(diagnose(silent)[0]?.title).toBe('Nothing heard on UDP 20785 for 65 s on any interface');
  });

  it('keeps the technician’s choice across a restart; until then the system’s language rules', async () => {
    const first = createConsoleService({ directory, sessionStore: new SessionStore(dir) });
    expect(await first.getSettings()).toEqual({ language: null });
    // The system's language: spoken, not kept.
    await first.setLanguage('zh-CN', false);
    expect(await first.getSettings()).toEqual({ language: null });
    const port = await closedPort();
    const state = await first.setCentral(`http://127.0.0.1:${port}`);
    expect(state.error).toBe(`127.0.0.1:${port} 无应答（连接被拒绝）`);
    expect(state.advice).toMatch(/^请检查：地址和端口是否正确/);

    await first.setLanguage('en', true);
    const second = createConsoleService({ directory, sessionStore: new SessionStore(dir) });
    expect(await second.getSettings()).toEqual({ language: 'en' });
    expect(t('app.tabs.terminals')).toBe('Terminals');
  });

  it('gives the shared field rules in the console’s language', async () => {
    const handlers = createIpcHandlers(createConsoleService({ directory }));
    const setCentral = handlers.find((h) => h.channel === IPC_CHANNELS.setCentral)!;
    await setLanguage('zh-CN');
    await expect(setCentral.handle(['http://10.0.0.1/x'])).rejects.toThrow(
      /^控制台拒绝了此操作：请输入 http:\/\/主机 或 http:\/\/主机:端口，后面不要再有其他内容。$/,
    );
  });
});
