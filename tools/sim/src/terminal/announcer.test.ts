import { afterEach, beforeEach, describe, expect, it } from '@jest/globals';
import { ANNOUNCE_INTERVAL_MS, ANNOUNCE_JITTER_MS, announceDatagram } from '@svc/shared';
import { request } from '../test/http-client.js';
import { ManualClock, sequence } from '../test/manual-clock.js';
import { announcesOf, openListener } from '../test/udp.js';
import { waitFor } from '../test/wait-for.js';
import type { SimEvent } from '../deps.js';
import { nextAnnounceDelay } from './announcer.js';
import { startTerminal } from './terminal.js';
import type { TerminalHandle, TerminalOptions } from './terminal.js';

type Listener = Awaited<ReturnType<typeof openListener>>;
let listener: Listener;
const running: TerminalHandle[] = [];

beforeEach(async () => {
  listener = await openListener();
});
afterEach(async () => {
  await Promise.all(running.splice(0).map((terminal) => terminal.stop()));
  await listener.close();
});

async function start(
  options: Partial<TerminalOptions> & { id: string },
  deps: Parameters<typeof startTerminal>[1] = {},
): Promise<TerminalHandle> {
  const terminal = await startTerminal(
    {
      kind: 'enrollment',
      bindAddress: '127.0.0.1',
      httpPort: 0,
      discoveryPort: listener.port,
      broadcastAddresses: ['127.255.255.255'],
      announceIntervalMs: 0,
      ...options,
    },
    deps,
  );
  running.push(terminal);
  return terminal;
}

describe('announces (PROTOCOL §1)', () => {
  it('announces at boot with a datagram the central service accepts', async () => {
    const terminal = await start({ id: 'ENR-BOOT', kind: 'display', name: 'Gate A' });
    const [first] = await waitFor('the boot announce', () => {
      const heard = announcesOf(listener.heard, 'ENR-BOOT');
      return heard.length > 0 && heard;
    });
    expect(announceDatagram.parse(first?.datagram)).toEqual({
      svc: 'discovery',
      v: 1,
      type: 'announce',
      id: 'ENR-BOOT',
      kind: 'display',
      name: 'Gate A',
      model: 'svc-sim',
      version: '0.1.0',
      port: terminal.port,
      central: '',
    });
    // Sent from the terminal's own address and an ephemeral port, not the discovery port.
    expect(first?.from.address).toBe('127.0.0.1');
    expect(first?.from.port).not.toBe(listener.port);
    expect(terminal.lastAnnounce()?.sent).toEqual([`127.255.255.255:${listener.port}`]);
  });

  it('announces again in answer to a probe', async () => {
    await start({ id: 'ENR-PROBE' });
    await waitFor('the boot announce', () => announcesOf(listener.heard, 'ENR-PROBE').length === 1);
    await listener.send(
      { svc: 'discovery', v: 1, type: 'probe' },
      '127.255.255.255',
      listener.port,
    );
    await waitFor('the probe answer', () => announcesOf(listener.heard, 'ENR-PROBE').length === 2);
  });

  it('announces the new central URL right after a config change', async () => {
    const terminal = await start({ id: 'ENR-CHANGE' });
    await waitFor(
      'the boot announce',
      () => announcesOf(listener.heard, 'ENR-CHANGE').length === 1,
    );
    const saved = await request(`${terminal.url}/api/config`, {
      method: 'POST',
      body: { centralUrl: 'http://127.0.0.1:9' },
    });
    expect(saved.status).toBe(200);
    const second = await waitFor('the announce after saving', () => {
      return announcesOf(listener.heard, 'ENR-CHANGE')[1];
    });
    expect(second.datagram).toMatchObject({ type: 'announce', central: 'http://127.0.0.1:9' });
  });

  it('refuses a central URL too long to repeat in an announce, and keeps the saved one', async () => {
    const terminal = await start({ id: 'ENR-LONG' });
    await waitFor('the boot announce', () => announcesOf(listener.heard, 'ENR-LONG').length === 1);
    // The contract caps centralUrl at 512 characters so a terminal can always announce it.
    const longUrl = `http://${'a'.repeat(1100)}:8000`;
    const saved = await request(`${terminal.url}/api/config`, {
      method: 'POST',
      body: { centralUrl: longUrl },
    });
    expect(saved.status).toBe(400);
    expect(terminal.config().centralUrl).toBe('');
  });

  it('records a central reply sent to the port the announce came from', async () => {
    const terminal = await start({ id: 'ENR-REPLY' });
    const announce = await waitFor('the boot announce', () => {
      return announcesOf(listener.heard, 'ENR-REPLY')[0];
    });
    expect(terminal.lastCentralHeard()).toBeNull();
    const reply = {
      svc: 'discovery',
      v: 1,
      type: 'central',
      url: 'http://127.0.0.1:8000',
      name: 'svc',
    };
    await listener.send(reply, announce.from.address, announce.from.port);
    const heard = await waitFor(
      'the central reply',
      () => terminal.lastCentralHeard() ?? undefined,
    );
    expect(heard).toMatchObject({ url: 'http://127.0.0.1:8000', name: 'svc' });
    expect(heard.from).toBe(`127.0.0.1:${listener.port}`);
  });

  it('counts and survives datagrams it cannot read', async () => {
    const terminal = await start({ id: 'ENR-JUNK' });
    await waitFor('the boot announce', () => announcesOf(listener.heard, 'ENR-JUNK').length === 1);
    await listener.send(Buffer.from('not json'), '127.255.255.255', listener.port);
    await listener.send({ svc: 'other', v: 1, type: 'probe' }, '127.255.255.255', listener.port);
    await waitFor('two drops', () => terminal.state().droppedDatagrams === 2);
    await listener.send(
      { svc: 'discovery', v: 1, type: 'probe' },
      '127.255.255.255',
      listener.port,
    );
    await waitFor('a probe answer', () => announcesOf(listener.heard, 'ENR-JUNK').length === 2);
  });

  it('stays quiet while muted, even when probed', async () => {
    const events: SimEvent[] = [];
    const terminal = await start(
      { id: 'ENR-MUTE', faults: { mute: true } },
      { onEvent: (event) => events.push(event) },
    );
    await listener.send(
      { svc: 'discovery', v: 1, type: 'probe' },
      '127.255.255.255',
      listener.port,
    );
    await waitFor('the probe to reach the terminal', () => events.some((e) => e.type === 'probe'));
    expect(terminal.lastAnnounce()).toBeNull();
    await terminal.setFaults({});
    await listener.send(
      { svc: 'discovery', v: 1, type: 'probe' },
      '127.255.255.255',
      listener.port,
    );
    await waitFor(
      'an announce once unmuted',
      () => announcesOf(listener.heard, 'ENR-MUTE').length === 1,
    );
    expect(listener.heard.filter((h) => h.datagram.type === 'announce')).toHaveLength(1);
  });
});

describe('announce timer and jitter', () => {
  it('keeps every periodic delay within interval ± jitter', () => {
    for (let draw = 0; draw < 1; draw += 0.001) {
      const delay = nextAnnounceDelay(ANNOUNCE_INTERVAL_MS, ANNOUNCE_JITTER_MS, draw);
      expect(delay).toBeGreaterThanOrEqual(ANNOUNCE_INTERVAL_MS - ANNOUNCE_JITTER_MS);
      expect(delay).toBeLessThanOrEqual(ANNOUNCE_INTERVAL_MS + ANNOUNCE_JITTER_MS);
    }
    expect(nextAnnounceDelay(10_000, 1_000, 0)).toBe(9_000);
    expect(nextAnnounceDelay(10_000, 1_000, 0.5)).toBe(10_000);
  });

  it('announces on the default 10 s ± 1 s schedule, driven by an injected clock', async () => {
    const clock = new ManualClock();
    await start(
      { id: 'ENR-TIMER', announceIntervalMs: ANNOUNCE_INTERVAL_MS },
      { clock, random: sequence(0, 0.5, 0.9999) },
    );
    await waitFor('the boot announce', () => announcesOf(listener.heard, 'ENR-TIMER').length === 1);
    expect(clock.pendingDelays()).toEqual([9_000]);

    clock.advance(8_999);
    expect(announcesOf(listener.heard, 'ENR-TIMER')).toHaveLength(1);
    clock.advance(1);
    await waitFor(
      'the first periodic announce',
      () => announcesOf(listener.heard, 'ENR-TIMER').length === 2,
    );
    await waitFor('the next timer', () => clock.pendingDelays()[0] === 10_000);

    clock.advance(10_000);
    await waitFor(
      'the second periodic announce',
      () => announcesOf(listener.heard, 'ENR-TIMER').length === 3,
    );
    const next = await waitFor('the third timer', () => clock.pendingDelays()[0]);
    expect(next).toBeGreaterThan(10_900);
    expect(next).toBeLessThanOrEqual(11_000);
  });

  it('does not announce on a timer when the interval is 0', async () => {
    const clock = new ManualClock();
    await start({ id: 'ENR-NOTIMER', announceIntervalMs: 0 }, { clock });
    await waitFor(
      'the boot announce',
      () => announcesOf(listener.heard, 'ENR-NOTIMER').length === 1,
    );
    expect(clock.pendingDelays()).toEqual([]);
  });
});
