import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { SessionStore } from './acceptance/session-store.js';
import { createConsoleService } from './console-service.js';
import { diagnose, SILENCE_MS } from './diagnostics/diagnostics.js';
import { setLanguage, t } from './i18n.js';
import { createIpcHandlers, IPC_CHANNELS } from './ipc.js';
import { closedPort } from '../testing/central-process.js';
import { diagnosticFacts, quietDirectory } from '../testing/stand-ins.js';

/** Nothing heard on any interface for 65 s. */
const silent = diagnosticFacts({ lastHeardAt: null, now: SILENCE_MS + 5_000 });

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
    const first = createConsoleService({
      directory: quietDirectory,
      sessionStore: new SessionStore(dir),
    });
    expect(await first.getSettings()).toEqual({ language: null });
    // The system's language: spoken, not kept.
    await first.setLanguage('zh-CN', false);
    expect(await first.getSettings()).toEqual({ language: null });
    const port = await closedPort();
    const state = await first.setCentral(`http://127.0.0.1:${port}`);
    expect(state.error).toBe(`127.0.0.1:${port} 无应答（连接被拒绝）`);
    expect(state.advice).toMatch(/^请检查：地址和端口是否正确/);

    await first.setLanguage('en', true);
    const second = createConsoleService({
      directory: quietDirectory,
      sessionStore: new SessionStore(dir),
    });
    expect(await second.getSettings()).toEqual({ language: 'en' });
    expect(t('app.tabs.terminals')).toBe('Terminals');
  });

  it('gives the shared field rules in the console’s language', async () => {
    const handlers = createIpcHandlers(createConsoleService({ directory: quietDirectory }));
    const setCentral = handlers.find((h) => h.channel === IPC_CHANNELS.setCentral)!;
    await setLanguage('zh-CN');
    await expect(setCentral.handle(['http://10.0.0.1/x'])).rejects.toThrow(
      /^控制台拒绝了此操作：请输入 http:\/\/主机 或 http:\/\/主机:端口，后面不要再有其他内容。$/,
    );
  });
});
