import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { configureResponse, terminalConfig, type DiscoveryNode } from '@svc/shared';
import { createLan, netnsUnavailable, type Lan } from '../test/netns.js';
import { MAIN, SERVER_ROOT, requireBuild, waitForHeartbeat } from '../test/process.js';
import { TestClient } from '../test/http-client.js';
import { waitFor } from '../test/wait.js';

const SIM = path.join(SERVER_ROOT, '../tools/sim/dist/cli.js');
const unavailable = netnsUnavailable();
if (unavailable && process.env.CI) throw new Error(`the LAN test cannot run in CI: ${unavailable}`);
if (unavailable)
  process.stdout.write(`[svc] SKIPPED the real-LAN discovery test: ${unavailable}\n`);

/**
 * A real LAN: a bridge and three network namespaces — the server on one host, an enrollment
 * and a display simulator on two others, announcing by broadcast to the subnet.
 */
(unavailable ? describe.skip : describe)('discovery across a real (namespaced) LAN', () => {
  let lan: Lan;
  let dataDir: string;
  const children = new Set<ChildProcess>();
  const PASSWORD = `lan-${Math.random().toString(36).slice(2)}-initial`;

  function inNamespace(ns: string, args: string[], env: Record<string, string> = {}) {
    const child = spawn('ip', ['netns', 'exec', ns, process.execPath, ...args], {
      env: { PATH: process.env.PATH ?? '/usr/bin:/bin', ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    child.stdout.on('data', (d: Buffer) => (output += d.toString()));
    child.stderr.on('data', (d: Buffer) => (output += d.toString()));
    children.add(child);
    child.once('exit', () => children.delete(child));
    return { child, output: () => output };
  }

  async function stop(child: ChildProcess) {
    if (child.exitCode !== null || child.signalCode !== null) return;
    const exited = new Promise((resolve) => child.once('exit', resolve));
    child.kill('SIGTERM');
    await exited;
  }

  const simulator = (host: 'e' | 'd', kindFlag: string, id: string) =>
    inNamespace(lan.hosts[host]!.ns, [
      SIM,
      kindFlag,
      id,
      '--bind',
      lan.hosts[host]!.address,
      '--broadcast',
      lan.broadcast,
      '--announce-interval',
      '1s',
      '--checkin-interval',
      '2s',
      '--state-dir',
      path.join(dataDir, `sim-${host}`),
      '--quiet',
    ]);

  beforeAll(async () => {
    requireBuild();
    dataDir = await mkdtemp(path.join(os.tmpdir(), 'svc-lan-'));
    lan = await createLan(['s', 'e', 'd']);
  }, 60_000);

  afterAll(async () => {
    await Promise.all([...children].map(stop));
    await lan?.destroy();
    if (dataDir) await rm(dataDir, { recursive: true, force: true });
  }, 60_000);

  test('nodes appear with their own addresses, take the pushed address, check in, and follow the offline rule', async () => {
    const serverHost = lan.hosts.s!.address;
    const central = `http://${serverHost}:8000`;
    const server = inNamespace(lan.hosts.s!.ns, [MAIN], {
      HTTP_HOST: '0.0.0.0',
      HTTP_PORT: '8000',
      DATA_DIR: path.join(dataDir, 'server'),
      SVC_DISCOVERY_WORKER: '1',
      SVC_PUSH_WORKER: '0',
      DISCOVERY_HOST: serverHost,
      WEB_PORT: '8000',
      DISCOVERY_TIMEOUT: '3',
      ADMIN_INITIAL_PASSWORD: PASSWORD,
      LOG_LEVEL: 'warn',
    });
    await waitForHeartbeat(central, 60_000).catch((err: Error) => {
      throw new Error(`${err.message}\n${server.output()}`);
    });
    simulator('e', '--enrollment', 'ENR-LAN');
    const display = simulator('d', '--display', 'DSP-LAN');

    const client = new TestClient(central);
    const list = () => client.get('/api/discovery/nodes').then((r) => r.body as DiscoveryNode[]);
    const both = await waitFor(
      list,
      (l) => ['ENR-LAN', 'DSP-LAN'].every((id) => l.some((n) => n.id === id)),
      20_000,
    );
    expect(both.find((n) => n.id === 'ENR-LAN')).toMatchObject({
      address: lan.hosts.e!.address,
      port: 8182,
      kind: 'enrollment',
      configUrl: `http://${lan.hosts.e!.address}:8182/api/config`,
    });
    expect(both.find((n) => n.id === 'DSP-LAN')).toMatchObject({
      address: lan.hosts.d!.address,
      port: 8181,
      kind: 'display',
    });

    expect((await client.login('admin', PASSWORD)).status).toBe(200);
    expect(
      (
        await client.post('/api/auth/password', {
          currentPassword: PASSWORD,
          newPassword: 'harbor quilt meadow seventy',
        })
      ).status,
    ).toBe(204);
    const configured = await client.post('/api/discovery/configure', {
      ids: ['ENR-LAN', 'DSP-LAN'],
    });
    expect(configured.status).toBe(200);
    const { results } = configureResponse.parse(configured.body);
    expect(results).toEqual([
      { id: 'ENR-LAN', ok: true, saved: expect.objectContaining({ centralUrl: central }) },
      { id: 'DSP-LAN', ok: true, saved: expect.objectContaining({ centralUrl: central }) },
    ]);
    // Read back independently, from this host, over the LAN.
    for (const host of ['e', 'd'] as const) {
      const port = host === 'e' ? 8182 : 8181;
      const res = await fetch(`http://${lan.hosts[host]!.address}:${port}/api/config`);
      expect(terminalConfig.parse(await res.json()).centralUrl).toBe(central);
    }
    const checkedIn = await waitFor(
      list,
      (l) =>
        l.filter((n) => n.id.endsWith('-LAN') && n.lastCheckin && n.central === central).length ===
        2,
      20_000,
    );
    expect(checkedIn).toHaveLength(2);

    await stop(display.child);
    await waitFor(list, (l) => !l.some((n) => n.id === 'DSP-LAN'), 15_000);
    expect((await list()).some((n) => n.id === 'ENR-LAN')).toBe(true);
    simulator('d', '--display', 'DSP-LAN');
    const back = await waitFor(list, (l) => l.some((n) => n.id === 'DSP-LAN'), 15_000);
    // Its saved configuration survived the restart: it announces the pushed address.
    expect(back.find((n) => n.id === 'DSP-LAN')?.central).toBe(central);
  }, 120_000);
});
