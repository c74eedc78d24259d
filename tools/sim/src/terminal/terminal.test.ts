import { mkdtemp, readFile, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from '@jest/globals';
import {
  displayStatus,
  errorBody,
  serverTimeResponse,
  terminalCheckin,
  terminalConfig,
} from '@svc/shared';
import type { PanelEvent } from '@svc/shared';
import { startCentralStub } from '../test/central-stub.js';
import { bearer, request } from '../test/http-client.js';
import { openListener } from '../test/udp.js';
import { waitFor } from '../test/wait-for.js';
import { startTerminal } from './terminal.js';
import type { TerminalHandle, TerminalOptions } from './terminal.js';

const TOKEN = 'tok-0123456789abcdef-secret';
let discovery: Awaited<ReturnType<typeof openListener>>;
let central: Awaited<ReturnType<typeof startCentralStub>>;
let dir: string;
const running: TerminalHandle[] = [];

beforeEach(async () => {
  discovery = await openListener();
  central = await startCentralStub();
  dir = await mkdtemp(join(tmpdir(), 'svc-sim-terminal-'));
});
afterEach(async () => {
  await Promise.all(running.splice(0).map((terminal) => terminal.stop()));
  await Promise.all([discovery.close(), central.close()]);
  await rm(dir, { recursive: true, force: true });
});

async function start(options: Partial<TerminalOptions> & { id: string }): Promise<TerminalHandle> {
  const terminal = await startTerminal({
    kind: 'enrollment',
    bindAddress: '127.0.0.1',
    httpPort: 0,
    discoveryPort: discovery.port,
    broadcastAddresses: ['127.255.255.255'],
    announceIntervalMs: 0,
    ...options,
  });
  running.push(terminal);
  return terminal;
}

const push = (terminal: TerminalHandle, body: unknown, headers: Record<string, string> = {}) =>
  request(`${terminal.url}/api/config`, { method: 'POST', body, headers });

describe('GET/POST /api/config (PROTOCOL §2)', () => {
  it('answers an empty config before anything was pushed', async () => {
    const terminal = await start({ id: 'ENR-EMPTY' });
    const answer = await request(`${terminal.url}/api/config`);
    expect(answer.status).toBe(200);
    expect(terminalConfig.parse(answer.json)).toEqual({
      id: 'ENR-EMPTY',
      kind: 'enrollment',
      centralUrl: '',
      panelUrl: '',
      updatedAt: null,
    });
  });

  it('saves a pushed config, answers it in the GET shape and never echoes the token', async () => {
    const terminal = await start({ id: 'ENR-SAVE' });
    const pushed = { centralUrl: central.url, panelUrl: 'http://127.0.0.1:7/panel', token: TOKEN };
    const saved = await push(terminal, pushed);
    expect(saved.status).toBe(200);
    const config = terminalConfig.parse(saved.json);
    expect(config).toMatchObject({
      id: 'ENR-SAVE',
      centralUrl: central.url,
      panelUrl: pushed.panelUrl,
    });
    expect(config.updatedAt).not.toBeNull();
    expect(saved.text).not.toContain(TOKEN);

    const readBack = await request(`${terminal.url}/api/config`);
    expect(readBack.json).toEqual(config);
    expect(readBack.text).not.toContain(TOKEN);
    const simState = await request(`${terminal.url}/_sim/state`);
    expect(simState.text).not.toContain(TOKEN);
    expect(simState.json).toMatchObject({ hasToken: true, config });
  });

  it('rejects an invalid URL with 400 and the §0 error body', async () => {
    const terminal = await start({ id: 'ENR-BAD' });
    for (const centralUrl of ['ftp://host', 'http://host/path', 'not a url', '']) {
      const answer = await push(terminal, { centralUrl });
      expect(answer.status).toBe(400);
      const body = errorBody.parse(answer.json);
      expect(body.error.code).toBe('invalid_input');
      expect(body.error.fields).toHaveProperty('centralUrl');
    }
    const broken = await request(`${terminal.url}/api/config`, {
      method: 'POST',
      body: '{"centralUrl":',
    });
    expect(broken.status).toBe(400);
    expect(errorBody.parse(broken.json).error.code).toBe('invalid_json');
    expect((await request(`${terminal.url}/api/config`)).json).toMatchObject({ centralUrl: '' });
  });

  it('requires the management key when one is set', async () => {
    const terminal = await start({ id: 'ENR-KEY', managementKey: 'mgmt-key-1' });
    const body = { centralUrl: central.url };
    for (const headers of [{}, bearer('wrong-key'), { authorization: 'mgmt-key-1' }]) {
      const refused = await push(terminal, body, headers);
      expect(refused.status).toBe(401);
      expect(errorBody.parse(refused.json).error.code).toBe('unauthorized');
      expect((await request(`${terminal.url}/api/config`, { headers })).status).toBe(401);
    }
    expect((await push(terminal, body, bearer('mgmt-key-1'))).status).toBe(200);
    const read = await request(`${terminal.url}/api/config`, { headers: bearer('mgmt-key-1') });
    expect(read.json).toMatchObject({ centralUrl: central.url });
  });

  it('keeps the config across a restart in its state file, written privately', async () => {
    const stateFile = join(dir, 'nested', 'enr.json');
    const first = await start({ id: 'ENR-PERSIST', stateFile });
    const saved = await push(first, { centralUrl: central.url, token: TOKEN });
    await first.stop();
    expect((await stat(stateFile)).mode & 0o777).toBe(0o600);
    expect(JSON.parse(await readFile(stateFile, 'utf8'))).toMatchObject({
      centralUrl: central.url,
    });

    const checkinsBefore = central.on('/api/terminal/checkin').length;
    const second = await start({ id: 'ENR-PERSIST', stateFile });
    expect((await request(`${second.url}/api/config`)).json).toEqual(saved.json);
    // The restarted terminal proves the connection again with the token it kept.
    const checkin = await waitFor('a check-in after the restart', () => {
      return central.on('/api/terminal/checkin')[checkinsBefore];
    });
    expect(checkin.authorization).toBe(`Bearer ${TOKEN}`);
  });
});

describe('check-in', () => {
  it('checks in with its token right after saving and then on its interval', async () => {
    const terminal = await start({ id: 'DSP-CHECK', kind: 'display', checkinIntervalMs: 50 });
    expect(terminal.lastCheckin()).toBeNull();
    await push(terminal, { centralUrl: central.url, token: TOKEN });
    const checkins = await waitFor('two check-ins', () => {
      const seen = central.on('/api/terminal/checkin');
      return seen.length >= 2 && seen;
    });
    for (const checkin of checkins) {
      expect(checkin.method).toBe('POST');
      expect(checkin.authorization).toBe(`Bearer ${TOKEN}`);
      expect(terminalCheckin.strict().parse(checkin.body)).toEqual({
        id: 'DSP-CHECK',
        kind: 'display',
      });
    }
    const last = await waitFor('the recorded result', () => terminal.lastCheckin() ?? undefined);
    expect(last.status).toBe(200);
    expect(last.url).toBe(`${central.url}/api/terminal/checkin`);
    expect(serverTimeResponse.safeParse(last.body).success).toBe(true);
  });

  it('records a refused token and drops the token when pushed to another central service', async () => {
    central.setResponder(() => ({
      status: 401,
      body: { error: { code: 'unauthorized', message: 'unknown token' } },
    }));
    const terminal = await start({ id: 'ENR-REVOKED', checkinIntervalMs: 0 });
    await push(terminal, { centralUrl: central.url, token: TOKEN });
    await waitFor('a 401 check-in', () => terminal.lastCheckin()?.status === 401);

    await push(terminal, { centralUrl: central.url });
    await waitFor('a second check-in', () => central.on('/api/terminal/checkin').length === 2);
    expect(central.on('/api/terminal/checkin')[1]?.authorization).toBe(`Bearer ${TOKEN}`);

    const other = await startCentralStub();
    try {
      await push(terminal, { centralUrl: other.url });
      const checkin = await waitFor('a check-in at the new address', () => other.requests[0]);
      expect(checkin.authorization).toBeUndefined();
      expect(terminal.state().hasToken).toBe(false);
    } finally {
      await other.close();
    }
  });
});

describe('display terminal', () => {
  const event: PanelEvent = {
    eventId: 'evt-1',
    time: '2026-11-22T06:30:00.000Z',
    score: 0.97,
    person: { id: 'p-1', name: 'Test Person' },
    device: { sn: 'DEV-1', name: 'Gate A' },
    space: null,
  };

  it('shows a panel event and reports it in its status', async () => {
    const terminal = await start({ id: 'DSP-SHOW', kind: 'display' });
    const before = await request(`${terminal.url}/api/status`);
    expect(displayStatus.parse(before.json).lastEvent).toBeNull();

    const shown = await request(`${terminal.url}/api/recognition`, { method: 'POST', body: event });
    expect(shown.status).toBe(200);
    expect(shown.json).toEqual({ shown: true });
    expect(terminal.lastEvent()).toEqual(event);
    const status = await request(`${terminal.url}/api/status`);
    expect(displayStatus.parse(status.json)).toEqual({
      id: 'DSP-SHOW',
      kind: 'display',
      centralUrl: '',
      panelUrl: '',
      lastEvent: event,
    });
  });

  it('shows an event delivered twice once, and answers both deliveries 200', async () => {
    const seen: string[] = [];
    const terminal = await startTerminal(
      {
        id: 'DSP-ONCE',
        kind: 'display',
        bindAddress: '127.0.0.1',
        httpPort: 0,
        discoveryPort: discovery.port,
        broadcastAddresses: ['127.255.255.255'],
        announceIntervalMs: 0,
      },
      {
        onEvent: (e) => {
          if (e.type === 'panel-event' || e.type === 'panel-repeat')
            seen.push(`${e.type} ${e.eventId}`);
        },
      },
    );
    running.push(terminal);
    const url = `${terminal.url}/api/recognition`;
    const answers = [
      await request(url, { method: 'POST', body: event }),
      await request(url, { method: 'POST', body: { ...event, eventId: 'evt-2' } }),
      await request(url, { method: 'POST', body: event }),
    ];
    expect(answers.map((a) => [a.status, a.json])).toEqual(
      Array.from({ length: 3 }, () => [200, { shown: true }]),
    );
    expect(seen).toEqual(['panel-event evt-1', 'panel-event evt-2', 'panel-repeat evt-1']);
    // The repeat did not replace what the display shows.
    expect(terminal.lastEvent()?.eventId).toBe('evt-2');
  });

  it('rejects an invalid panel event and leaves the last one in place', async () => {
    const terminal = await start({ id: 'DSP-BAD', kind: 'display' });
    await request(`${terminal.url}/api/recognition`, { method: 'POST', body: event });
    const answer = await request(`${terminal.url}/api/recognition`, {
      method: 'POST',
      body: { ...event, score: 2 },
    });
    expect(answer.status).toBe(400);
    expect(errorBody.parse(answer.json).error.fields).toHaveProperty('score');
    expect(terminal.lastEvent()).toEqual(event);
  });

  it('is not served by an enrollment terminal', async () => {
    const terminal = await start({ id: 'ENR-NOSTATUS' });
    const answer = await request(`${terminal.url}/api/status`);
    expect(answer.status).toBe(404);
    expect(errorBody.parse(answer.json).error.code).toBe('not_found');
  });
});
