import type { ConsoleApi } from './api.js';
import {
  createIpcHandlers,
  INVOKE_METHODS,
  IPC_CHANNELS,
  IpcArgumentError,
  SAVE_FILE_CHANNEL,
  TERMINALS_CHANGED_CHANNEL,
} from './ipc.js';
import { NO_DROPS } from '../testing/stand-ins.js';

const central = {
  url: null,
  user: null,
  heartbeat: null,
  checkedAt: '',
  reach: null,
  error: null,
  advice: null,
  problem: null,
  refusal: null,
  codeRequired: false,
};
const acceptance = { layers: [], report: null };

function fakeApi(calls: string[]): ConsoleApi {
  const record =
    <T>(name: string, value: T) =>
    (...args: unknown[]) => {
      calls.push(`${name}(${args.length})`);
      return Promise.resolve(value);
    };
  return {
    listTerminals: record('listTerminals', []),
    listCentrals: record('listCentrals', []),
    getDropCounts: record('getDropCounts', { ...NO_DROPS, oversize: 3 }),
    getStatus: record('getStatus', {
      listening: true,
      local: null,
      lastError: null,
      socketProblem: null,
    }),
    probe: record('probe', { sentAt: 'now', throttled: false, outcomes: [], error: null }),
    listenAgain: record('listenAgain', {
      listening: true,
      local: null,
      lastError: null,
      socketProblem: null,
    }),
    onTerminalsChanged: () => () => undefined,
    terminalsCsv: record('terminalsCsv', ''),
    diagnose: record('diagnose', {
      at: '',
      port: 0,
      listening: true,
      interfaces: [],
      findings: [],
    }),
    getCentral: record('getCentral', central),
    setCentral: record('setCentral', central),
    signIn: record('signIn', central),
    signOut: record('signOut', central),
    changePassword: record('changePassword', central),
    push: record('push', []),
    pushProgress: record('pushProgress', []),
    listPushes: record('listPushes', []),
    getAcceptance: record('getAcceptance', acceptance),
    runLayer: record('runLayer', acceptance),
    confirmLayer: record('confirmLayer', acceptance),
    finishAcceptance: record('finishAcceptance', acceptance),
    recordReport: record('recordReport', acceptance),
    getReport: record('getReport', { filename: 'r.json', mime: 'application/json', base64: '' }),
    getSettings: record('getSettings', { language: null }),
    setLanguage: record('setLanguage', { language: 'zh-CN' }),
  };
}

describe('IPC handlers', () => {
  it('have one distinct channel per request method, named after it', () => {
    const handlers = createIpcHandlers(fakeApi([]));
    expect(handlers.map((handler) => handler.channel).sort()).toEqual(
      Object.values(IPC_CHANNELS).sort(),
    );
    const channels = [...Object.values(IPC_CHANNELS), TERMINALS_CHANGED_CHANNEL, SAVE_FILE_CHANNEL];
    expect(new Set(channels).size).toBe(channels.length);
    expect(IPC_CHANNELS.getDropCounts).toBe('svc-console:get-drop-counts');
    expect(handlers.map((handler) => handler.method)).toEqual(INVOKE_METHODS);
  });

  it('cover every request method of ConsoleApi: the core and the list agree', () => {
    const api = fakeApi([]);
    const requests = Object.keys(api).filter((name) => name !== 'onTerminalsChanged');
    expect([...INVOKE_METHODS].sort()).toEqual(requests.sort());
  });

  it('call the core with validated arguments and return its answer', async () => {
    const calls: string[] = [];
    const handlers = createIpcHandlers(fakeApi(calls));
    const drops = handlers.find((handler) => handler.channel === IPC_CHANNELS.getDropCounts);
    await expect(drops?.handle([])).resolves.toMatchObject({ oversize: 3 });
    expect(calls).toEqual(['getDropCounts(0)']);
  });

  it.each([[['255.255.255.255']], [[undefined]], [[{ addresses: ['10.0.0.255'] }]]])(
    'refuse unexpected arguments %j before the core sees them',
    async (args) => {
      const calls: string[] = [];
      for (const handler of createIpcHandlers(fakeApi(calls))) {
        // diagnose takes exactly one IPv4 address
        if (handler.channel === IPC_CHANNELS.diagnose && typeof args[0] === 'string') continue;
        await expect(handler.handle(args)).rejects.toBeInstanceOf(IpcArgumentError);
      }
      expect(calls).toEqual([]);
    },
  );

  it.each([
    ['push', [{ ids: [], centralUrl: 'http://10.0.0.1' }]],
    ['push', [{ ids: ['A'], centralUrl: 'ftp://x' }]],
    ['push', [{ ids: ['A'], centralUrl: 'http://10.0.0.1', extra: 1 }]],
    ['runLayer', ['nine', {}]],
    ['runLayer', ['data', { password: 'x' }]],
    ['confirmLayer', ['services', '', 'note']],
    ['diagnose', ['10.0.0.300']],
    ['getReport', ['docx']],
    ['setLanguage', ['fr', true]],
    ['setLanguage', ['zh-CN']],
    ['signIn', ['tess', 'pw', '']],
    ['signIn', ['tess', 'pw', 'x'.repeat(33)]],
  ] as const)('refuse %s%j', async (method, args) => {
    const calls: string[] = [];
    const handler = createIpcHandlers(fakeApi(calls)).find(
      (h) => h.channel === IPC_CHANNELS[method],
    );
    await expect(handler?.handle(args)).rejects.toBeInstanceOf(IpcArgumentError);
    expect(calls).toEqual([]);
  });

  it('say that diagnostics take a bare IPv4 address, and where the ports come from', async () => {
    const calls: string[] = [];
    const handler = createIpcHandlers(fakeApi(calls)).find(
      (h) => h.channel === IPC_CHANNELS.diagnose,
    );
    const refusal = handler?.handle(['127.0.0.1:8645']);
    await expect(refusal).rejects.toBeInstanceOf(IpcArgumentError);
    await expect(refusal).rejects.toThrow(
      /"127\.0\.0\.1:8645" is not a bare IPv4 address.*without a port.*management ports \(8182 and 8181/,
    );
    expect(calls).toEqual([]);
  });

  it('pass valid push and layer arguments on', async () => {
    const calls: string[] = [];
    const handlers = createIpcHandlers(fakeApi(calls));
    const push = handlers.find((h) => h.channel === IPC_CHANNELS.push);
    await push?.handle([
      { ids: ['ENR-1'], centralUrl: 'http://10.0.0.1:8000', keys: { 'ENR-1': 'k' } },
    ]);
    const run = handlers.find((h) => h.channel === IPC_CHANNELS.runLayer);
    await run?.handle(['data', { organization: 'Org', person: 'Ann' }]);
    expect(calls).toEqual(['push(1)', 'runLayer(2)']);
  });

  it('pass a sign-in on with or without its two-factor code (trimmed)', async () => {
    const seen: unknown[][] = [];
    const api = fakeApi([]);
    api.signIn = (...args) => {
      seen.push(args);
      return Promise.resolve(central);
    };
    const signIn = createIpcHandlers(api).find((h) => h.channel === IPC_CHANNELS.signIn);
    await signIn?.handle(['tess', 'pw']);
    await signIn?.handle(['tess', 'pw', ' 123456 ']);
    expect(seen).toEqual([
      ['tess', 'pw', undefined],
      ['tess', 'pw', '123456'],
    ]);
  });
});
