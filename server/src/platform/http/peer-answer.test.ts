import { startDevice, startTerminal, type DeviceHandle, type TerminalHandle } from '@svc/sim';
import { DeviceCallError, createDeviceClient } from '../../devices/client.js';
import { createTerminalClient } from '../../discovery/terminal-client.js';
import { pipelinedPanelTransport } from '../../recognition/panel-outbox/panel-client.js';
import { keepAliveFetch } from '../../sync/delivery/device-fetch.js';
import { freePort } from '../../test/mariadb-instance.js';
import { ANSWER_TOO_LARGE } from './peer-answer.js';

/** Far more than any answer may be: read whole, it would show in the process's memory. */
const HUGE = 800 * 1024 * 1024;

describe('answers from devices, terminals and panels are capped', () => {
  const running: (TerminalHandle | DeviceHandle)[] = [];
  afterAll(async () => {
    await Promise.all(running.map((n) => n.stop()));
  });

  async function terminal(id: string, kind: 'enrollment' | 'display') {
    const t = await startTerminal({
      id,
      kind,
      bindAddress: '127.0.0.1',
      httpPort: 0,
      discoveryPort: await freePort(),
      broadcastAddresses: ['127.0.0.1'],
      announceIntervalMs: 0,
      checkinIntervalMs: 0,
      listenForProbes: false,
      faults: { answerBytes: HUGE },
    });
    running.push(t);
    return t;
  }

  async function device() {
    const d = await startDevice({
      sn: 'DEV-HUGE',
      key: 'device-key-for-the-test',
      bindAddress: '127.0.0.1',
      heartbeatIntervalMs: 0,
      faults: { answerBytes: HUGE },
    });
    running.push(d);
    return { sn: d.sn, baseUrl: d.url, key: 'device-key-for-the-test' };
  }

  test('a terminal answering 800 MB fails the call with answer_too_large', async () => {
    const t = await terminal('ENR-HUGE', 'enrollment');
    const client = createTerminalClient(30_000);
    await expect(client.read(t.url)).rejects.toThrow(
      new RegExp(
        `the terminal at 127\\.0\\.0\\.1:${t.port} answered more than 64 KiB \\(${ANSWER_TOO_LARGE}\\)`,
      ),
    );
  });

  test.each([
    ['the global fetch', undefined],
    ['the push worker’s keep-alive transport', keepAliveFetch()],
  ])('a device answering 800 MB through %s fails with answer_too_large', async (_, fetch) => {
    const target = await device();
    const client = createDeviceClient({ timeoutMs: 30_000, ...(fetch && { fetch }) });
    const err = await client.getPerson(target, 'p-1').catch((e: unknown) => e);
    expect(err).toBeInstanceOf(DeviceCallError);
    expect(err).toMatchObject({
      failure: ANSWER_TOO_LARGE,
      message: expect.stringContaining(`answered more than 64 KiB (${ANSWER_TOO_LARGE})`),
      retryable: false,
    });
    await fetch?.close();
  });

  test('a panel answering 800 MB fails the delivery with answer_too_large', async () => {
    const panel = await terminal('DSP-HUGE', 'display');
    const transport = pipelinedPanelTransport({ timeoutMs: 30_000 });
    try {
      const [result] = await transport.post(`${panel.url}/api/recognition`, ['{}']);
      expect(result).toMatch(new RegExp(`^${ANSWER_TOO_LARGE}: the panel's answer is larger`));
    } finally {
      transport.close();
    }
  });
});
