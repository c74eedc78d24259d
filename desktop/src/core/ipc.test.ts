import type { ConsoleApi } from './api.js';
import { createIpcHandlers, IPC_CHANNELS, IpcArgumentError } from './ipc.js';

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
    getDropCounts: record('getDropCounts', {
      oversize: 3,
      not_json: 0,
      not_object: 0,
      wrong_service: 0,
      unknown_version: 0,
      unknown_type: 0,
      bad_field: 0,
    }),
    getStatus: record('getStatus', { listening: true, local: null, lastError: null }),
    probe: record('probe', { sentAt: 'now', throttled: false, outcomes: [], error: null }),
    onTerminalsChanged: () => () => undefined,
  };
}

describe('IPC handlers', () => {
  it('have one distinct channel per request method', () => {
    const handlers = createIpcHandlers(fakeApi([]));
    expect(handlers.map((handler) => handler.channel).sort()).toEqual(
      [
        IPC_CHANNELS.getDropCounts,
        IPC_CHANNELS.getStatus,
        IPC_CHANNELS.listCentrals,
        IPC_CHANNELS.listTerminals,
        IPC_CHANNELS.probe,
      ].sort(),
    );
    expect(new Set(Object.values(IPC_CHANNELS)).size).toBe(Object.keys(IPC_CHANNELS).length);
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
        await expect(handler.handle(args)).rejects.toBeInstanceOf(IpcArgumentError);
      }
      expect(calls).toEqual([]);
    },
  );
});
