import dgram from 'node:dgram';
import { DEFAULT_DISCOVERY_PORT, DEFAULT_DISCOVERY_TIMEOUT_S, parseDatagram } from '@svc/shared';
import { systemClock } from './clock.js';
import { TerminalDirectory, type DirectoryChange } from './terminal-directory.js';
import { openNodeUdpSocket, type DatagramSocket, type Endpoint } from '@svc/shared/udp';
import { FakeClock } from '../testing/fake-clock.js';
import { announce, closeSocket, nextChange, openSender, sendTo } from '../testing/udp.js';

const open: { directory: TerminalDirectory[]; sockets: dgram.Socket[] } = {
  directory: [],
  sockets: [],
};

afterEach(async () => {
  await Promise.all(open.directory.splice(0).map((directory) => directory.close()));
  await Promise.all(open.sockets.splice(0).map((socket) => closeSocket(socket)));
});

async function startDirectory(
  options: ConstructorParameters<typeof TerminalDirectory>[1] = {},
  clock = new FakeClock(),
): Promise<{ directory: TerminalDirectory; port: number; clock: FakeClock }> {
  const directory = new TerminalDirectory(
    { openSocket: openNodeUdpSocket, clock },
    { port: 0, ...options },
  );
  open.directory.push(directory);
  await directory.start();
  const local = directory.status().local;
  if (!local) throw new Error('not listening');
  return { directory, port: local.port, clock };
}

async function sender(): Promise<dgram.Socket> {
  const socket = await openSender();
  open.sockets.push(socket);
  return socket;
}

/** A socket bound like a central service on the discovery port (SO_REUSEADDR), on an ephemeral port. */
async function reuseAddrReceiver(): Promise<{ socket: dgram.Socket; port: number }> {
  const socket = dgram.createSocket({ type: 'udp4', reuseAddr: true });
  open.sockets.push(socket);
  await new Promise<void>((resolve) => socket.bind(0, '0.0.0.0', resolve));
  return { socket, port: socket.address().port };
}

describe('TerminalDirectory defaults', () => {
  it('listens on the protocol port with the protocol timeout unless told otherwise', () => {
    const directory = new TerminalDirectory({ openSocket: openNodeUdpSocket, clock: systemClock });
    expect(directory.port).toBe(DEFAULT_DISCOVERY_PORT);
    expect(directory.port).toBe(20785);
    expect(directory.timeoutMs).toBe(DEFAULT_DISCOVERY_TIMEOUT_S * 1000);
    expect(directory.bindAddress).toBe('0.0.0.0');
    expect(directory.broadcastAddresses).toEqual(['255.255.255.255']);
  });

  it('rejects an impossible port or timeout', () => {
    const deps = { openSocket: openNodeUdpSocket, clock: systemClock };
    expect(() => new TerminalDirectory(deps, { port: 70000 })).toThrow(RangeError);
    expect(() => new TerminalDirectory(deps, { timeoutS: 0 })).toThrow(RangeError);
  });
});

describe('TerminalDirectory over real UDP', () => {
  it('lists an announce with the datagram source address, never the payload one', async () => {
    const { directory, port, clock } = await startDirectory();
    const socket = await sender();
    const online = nextChange(directory, 'terminal-online');
    await sendTo(
      socket,
      announce({
        name: 'Gate A enrollment',
        model: 'H1',
        version: '2.3.0',
        central: 'http://192.168.1.10',
        address: '10.9.9.9',
        ip: '10.9.9.9',
      }),
      port,
    );
    const change = await online;
    const expected = {
      id: 'ENR-0001',
      kind: 'enrollment',
      name: 'Gate A enrollment',
      model: 'H1',
      version: '2.3.0',
      address: '127.0.0.1',
      port: 8182,
      sourcePort: socket.address().port,
      configUrl: 'http://127.0.0.1:8182/api/config',
      central: 'http://192.168.1.10',
      conflict: null,
      firstSeen: new Date(clock.now()).toISOString(),
      lastSeen: new Date(clock.now()).toISOString(),
      announces: 1,
    };
    expect(change.terminal).toEqual(expected);
    expect(directory.list()).toEqual([expected]);
    expect(directory.get('ENR-0001')).toEqual(expected);
    expect(JSON.stringify(directory.list())).not.toContain('10.9.9.9');
  });

  it('updates a terminal by id and keeps several terminals sorted by id', async () => {
    const { directory, port, clock } = await startDirectory();
    const socket = await sender();
    let online = nextChange(directory, 'terminal-online');
    await sendTo(socket, announce({ id: 'DSP-0002', kind: 'display', port: 8181 }), port);
    await online;
    online = nextChange(directory, 'terminal-online');
    await sendTo(socket, announce({ id: 'ENR-0001', central: '' }), port);
    await online;

    clock.advance(10_000);
    const updated = nextChange(directory, 'terminal-updated');
    await sendTo(socket, announce({ id: 'ENR-0001', central: 'http://10.0.0.5:8080' }), port);
    const change = await updated;
    expect(change.terminal.central).toBe('http://10.0.0.5:8080');
    expect(change.terminal.announces).toBe(2);
    expect(change.terminal.lastSeen).toBe(new Date(clock.now()).toISOString());
    expect(change.terminal.firstSeen).toBe(new Date(clock.now() - 10_000).toISOString());

    const list = directory.list();
    expect(list.map((terminal) => [terminal.id, terminal.kind, terminal.port])).toEqual([
      ['DSP-0002', 'display', 8181],
      ['ENR-0001', 'enrollment', 8182],
    ]);
    expect(list[0]?.central).toBeNull();
    expect(list[0]?.name).toBeNull();
  });

  it('drops invalid datagrams, counts them by reason, and keeps listening', async () => {
    const { directory, port } = await startDirectory();
    const socket = await sender();
    const drops: DirectoryChange[] = [];
    directory.onChange((change) => {
      if (change.type === 'dropped') drops.push(change);
    });

    const invalid: (string | Buffer)[] = [
      'not json at all',
      Buffer.from([0xff, 0xfe, 0x7b, 0x7d]),
      '[1,2,3]',
      announce({ svc: 'other' }),
      announce({ v: 2 }),
      JSON.stringify({ svc: 'discovery', v: 1, type: 'reboot' }),
      announce({ id: 'bad id!' }),
      announce({ id: '' }),
      announce({ port: 70000 }),
      announce({ kind: 'camera' }),
      // 2 KiB: over the 1024-byte limit, though otherwise a fine announce.
      announce({ name: 'x'.repeat(20), padding: 'p'.repeat(2048 - announce().length - 34) }),
    ];
    expect(Buffer.byteLength(invalid.at(-1) as string)).toBeGreaterThan(2000);
    for (const payload of invalid) await sendTo(socket, payload, port);

    const online = nextChange(directory, 'terminal-online');
    await sendTo(socket, announce({ id: 'ENR-0009' }), port);
    await online;

    expect(drops).toHaveLength(invalid.length);
    expect(directory.dropCounts()).toEqual({
      oversize: 1,
      not_json: 2,
      not_object: 1,
      wrong_service: 1,
      unknown_version: 1,
      unknown_type: 1,
      bad_field: 4,
    });
    expect(directory.list().map((terminal) => terminal.id)).toEqual(['ENR-0009']);
    expect(directory.status()).toMatchObject({ listening: true, lastError: null });
  });

  it('records central services answering on the LAN, from their source address', async () => {
    const { directory, port } = await startDirectory();
    const socket = await sender();
    const heard = nextChange(directory, 'central');
    await sendTo(
      socket,
      JSON.stringify({
        svc: 'discovery',
        v: 1,
        type: 'central',
        url: 'http://192.168.1.10',
        name: 'svc',
      }),
      port,
    );
    const change = await heard;
    expect(change.central).toMatchObject({
      url: 'http://192.168.1.10',
      name: 'svc',
      address: '127.0.0.1',
      sourcePort: socket.address().port,
    });
    expect(directory.centrals()).toEqual([change.central]);
    expect(directory.list()).toEqual([]);
  });

  it('applies the offline rule: silent longer than the timeout leaves, the next announce returns', async () => {
    const { directory, port, clock } = await startDirectory({ timeoutS: 45 });
    const socket = await sender();
    let online = nextChange(directory, 'terminal-online');
    await sendTo(socket, announce(), port);
    await online;

    clock.advance(45_000);
    expect(directory.list().map((terminal) => terminal.id)).toEqual(['ENR-0001']);

    const changes: DirectoryChange['type'][] = [];
    directory.onChange((change) => changes.push(change.type));
    clock.advance(1_000);
    expect(changes).toEqual(['terminal-offline']);
    expect(directory.list()).toEqual([]);
    expect(directory.get('ENR-0001')).toBeUndefined();

    online = nextChange(directory, 'terminal-online');
    await sendTo(socket, announce({ name: 'back' }), port);
    const back = await online;
    expect(back.terminal).toMatchObject({ id: 'ENR-0001', name: 'back', announces: 1 });
    expect(back.terminal.firstSeen).toBe(new Date(clock.now()).toISOString());
    expect(directory.list()).toHaveLength(1);
  });

  it('hides an expired terminal even before the periodic sweep runs', async () => {
    const { directory, port, clock } = await startDirectory({
      timeoutS: 45,
      sweepIntervalMs: 3_600_000,
    });
    const socket = await sender();
    const online = nextChange(directory, 'terminal-online');
    await sendTo(socket, announce(), port);
    await online;
    clock.advance(45_001);
    expect(directory.list()).toEqual([]);
  });

  it('probes the discovery port, heard by another socket sharing the port', async () => {
    // A central service listening on the same port on the same laptop (SO_REUSEADDR).
    const receiver = await reuseAddrReceiver();
    const received = new Promise<{ payload: Buffer; from: Endpoint }>((resolve) =>
      receiver.socket.once('message', (payload, rinfo) => resolve({ payload, from: rinfo })),
    );
    const { directory, port } = await startDirectory({
      port: receiver.port,
      broadcastAddresses: ['127.255.255.255'],
    });
    expect(port).toBe(receiver.port);

    const outcomes = await directory.probe();
    expect(outcomes).toEqual([{ address: '127.255.255.255', ok: true }]);
    const { payload, from } = await received;
    expect(from.address).toBe('127.0.0.1');
    expect(parseDatagram(payload)).toEqual({
      ok: true,
      datagram: { svc: 'discovery', v: 1, type: 'probe' },
    });
    expect(JSON.parse(payload.toString('utf8'))).toEqual({ svc: 'discovery', v: 1, type: 'probe' });

    // The directory hears its own probe too, and neither lists nor drops it.
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(directory.list()).toEqual([]);
    expect(Object.values(directory.dropCounts()).every((count) => count === 0)).toBe(true);
  });

  it('probes explicit addresses and reports each outcome', async () => {
    const { directory, port } = await startDirectory();
    // Bound after the directory on the same port: a unicast reaches the last bound socket only.
    const receiver = dgram.createSocket({ type: 'udp4', reuseAddr: true });
    open.sockets.push(receiver);
    await new Promise<void>((resolve) => receiver.bind(port, '0.0.0.0', resolve));
    const received = new Promise<Buffer>((resolve) =>
      receiver.once('message', (payload) => resolve(payload)),
    );
    expect(await directory.probe(['127.0.0.1'])).toEqual([{ address: '127.0.0.1', ok: true }]);
    expect(parseDatagram(await received)).toMatchObject({ ok: true, datagram: { type: 'probe' } });
  });

  it('refuses to probe while not listening', async () => {
    const directory = new TerminalDirectory(
      { openSocket: openNodeUdpSocket, clock: new FakeClock() },
      { port: 0 },
    );
    await expect(directory.probe(['127.0.0.1'])).rejects.toThrow('not listening');
  });

  it('close() releases the port and stops the sweep timer', async () => {
    const { directory, port, clock } = await startDirectory();
    expect(clock.activeTimers).toBe(1);
    await directory.close();
    expect(clock.activeTimers).toBe(0);
    expect(directory.status()).toMatchObject({ listening: false, local: null });

    // An exclusive bind (no SO_REUSEADDR) succeeds only if nothing holds the port any more.
    const exclusive = dgram.createSocket({ type: 'udp4' });
    open.sockets.push(exclusive);
    await new Promise<void>((resolve, reject) => {
      exclusive.once('error', reject);
      exclusive.bind(port, '0.0.0.0', () => resolve());
    });
    expect(exclusive.address().port).toBe(port);
    await directory.close(); // idempotent
  });

  it('a bind failure rejects start(), is reported in status, and crashes nothing', async () => {
    const holder = dgram.createSocket({ type: 'udp4' }); // exclusive: refuses SO_REUSEADDR sharers
    open.sockets.push(holder);
    await new Promise<void>((resolve) => holder.bind(0, '0.0.0.0', resolve));
    const reported: string[] = [];
    const directory = new TerminalDirectory(
      {
        openSocket: openNodeUdpSocket,
        clock: new FakeClock(),
        report: (message) => reported.push(message),
      },
      { port: holder.address().port },
    );
    await expect(directory.start()).rejects.toMatchObject({ code: 'EADDRINUSE' });
    expect(directory.status()).toMatchObject({ listening: false, local: null });
    expect(directory.status().lastError).toContain('EADDRINUSE');
    expect(reported).toContain('discovery socket error');
    await directory.close();
  });

  it('a throwing change listener does not stop the listener', async () => {
    const reported: unknown[] = [];
    const clock = new FakeClock();
    const directory = new TerminalDirectory(
      { openSocket: openNodeUdpSocket, clock, report: (_message, error) => reported.push(error) },
      { port: 0 },
    );
    open.directory.push(directory);
    await directory.start();
    const port = directory.status().local?.port ?? 0;
    directory.onChange(() => {
      throw new Error('renderer went away');
    });
    const socket = await sender();
    const first = nextChange(directory, 'terminal-online');
    await sendTo(socket, announce({ id: 'A' }), port);
    await first;
    const second = nextChange(directory, 'terminal-online');
    await sendTo(socket, announce({ id: 'B' }), port);
    await second;
    expect(directory.list().map((terminal) => terminal.id)).toEqual(['A', 'B']);
    expect(reported.length).toBeGreaterThanOrEqual(2);
  });
});

describe('TerminalDirectory socket errors', () => {
  it('records a runtime socket error and keeps serving the list', async () => {
    let emitError: (error: Error) => void = () => undefined;
    let deliver: (payload: Buffer, from: Endpoint) => void = () => undefined;
    const socket: DatagramSocket = {
      bind: () => Promise.resolve(),
      setBroadcast: () => undefined,
      send: () => Promise.reject(Object.assign(new Error('send failed'), { code: 'ENETUNREACH' })),
      local: () => ({ address: '0.0.0.0', port: 20785 }),
      close: () => Promise.resolve(),
      onMessage: (listener) => {
        deliver = listener;
      },
      onError: (listener) => {
        emitError = listener;
      },
    };
    const directory = new TerminalDirectory({ openSocket: () => socket, clock: new FakeClock() });
    await directory.start();
    emitError(Object.assign(new Error('recvmsg failed'), { code: 'ENOBUFS' }));
    expect(directory.status()).toMatchObject({
      listening: true,
      lastError: 'ENOBUFS: recvmsg failed',
    });
    deliver(Buffer.from(announce()), { address: '192.168.1.20', port: 40000 });
    expect(directory.list()[0]).toMatchObject({
      address: '192.168.1.20',
      configUrl: 'http://192.168.1.20:8182/api/config',
    });
    expect(await directory.probe(['10.250.0.255', '255.255.255.255'])).toEqual([
      { address: '10.250.0.255', ok: false, error: 'ENETUNREACH: send failed' },
      { address: '255.255.255.255', ok: false, error: 'ENETUNREACH: send failed' },
    ]);
    await directory.close();
  });
});
