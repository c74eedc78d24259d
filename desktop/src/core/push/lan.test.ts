import path from 'node:path';
import type { ConsoleApi } from '../api.js';
import { probeAddresses } from '../network.js';
import type { TerminalDirectory } from '../terminal-directory.js';
import { networkInterfaces } from 'node:os';
import {
  centralUnavailable,
  startCentral,
  type CentralProcess,
  testDiscoveryPort,
} from '../../testing/central-process.js';
import { listeningConsole } from '../../testing/console.js';
import { createSubnets, inNamespace, netnsUnavailable, type Subnet } from '../../testing/lan.js';

const SIM = path.resolve(import.meta.dirname, '../../../../tools/sim/dist/cli.js');
const unavailable = netnsUnavailable() ?? centralUnavailable();
if (unavailable)
  process.stdout.write(`[svc] SKIPPED the console's two-subnet LAN test: ${unavailable}\n`);

/**
 * The laptop on two real subnets (bridges with network namespaces behind them): a terminal on
 * each, the central service on the laptop. The console lists both with the interface each was
 * heard on, and proves a push to each.
 */
(unavailable ? describe.skip : describe)('the console on two subnets of a real LAN', () => {
  const discoveryPort = testDiscoveryPort(32000);
  let lan: Awaited<ReturnType<typeof createSubnets>>;
  let central: CentralProcess;
  let directory: TerminalDirectory;
  let api: ConsoleApi;
  const sims: ReturnType<typeof inNamespace>[] = [];

  beforeAll(async () => {
    lan = await createSubnets(2);
    const [a] = lan.subnets as [Subnet, Subnet];
    central = await startCentral({ discoveryPort, host: a.hostAddress, bind: '0.0.0.0' });
    ({ directory, api } = await listeningConsole(discoveryPort, {
      // The subnet broadcasts of this laptop's interfaces (never 255.255.255.255 in tests).
      probeAddresses: () =>
        probeAddresses(networkInterfaces()).filter((x) => x !== '255.255.255.255'),
      checkinTimeoutMs: 10_000,
    }));
    for (const [i, s] of lan.subnets.entries()) {
      sims.push(
        inNamespace(s.ns, [
          SIM,
          '--enrollment',
          `ENR-NET${i}`,
          '--bind',
          s.address,
          '--broadcast',
          s.broadcast,
          '--discovery-port',
          String(discoveryPort),
          '--announce-interval',
          '0',
          '--checkin-interval',
          '0',
          '--quiet',
        ]),
      );
    }
  }, 90_000);

  afterAll(async () => {
    for (const s of sims) await s.stop();
    await directory?.close();
    await central?.stop();
    await lan?.destroy();
  }, 60_000);

  test('terminals on both subnets are listed with their interface, and pushes to both are proven', async () => {
    const [a, b] = lan.subnets as [Subnet, Subnet];
    // Announces only at boot and on probes: the probe to each subnet's broadcast finds them.
    const both = new Promise<void>((resolve) => {
      const off = api.onTerminalsChanged((list) => {
        if (list.length >= 2) {
          off();
          resolve();
        }
      });
    });
    for (;;) {
      const report = await api.probe();
      expect(report.outcomes.map((o) => o.address)).toEqual(
        expect.arrayContaining([a.broadcast, b.broadcast]),
      );
      const done = await Promise.race([
        both.then(() => true),
        new Promise((r) => setTimeout(() => r(false), 1100)),
      ]);
      if (done) break;
    }
    const listed = await api.listTerminals();
    expect(listed.map((t) => [t.id, t.address, t.heardOn])).toEqual([
      ['ENR-NET0', a.address, `${a.bridge} (${a.address.replace(/\.11$/, '.0')}/24)`],
      ['ENR-NET1', b.address, `${b.bridge} (${b.address.replace(/\.11$/, '.0')}/24)`],
    ]);

    // The central service hears both too (it shares the discovery port on this laptop).
    const nodes = async () =>
      (
        await fetch(`${central.url}/api/discovery/nodes`).then(
          (r) => r.json() as Promise<{ id: string }[]>,
        )
      ).map((n) => n.id);
    while ((await nodes()).length < 2)
      await api.probe().then(() => new Promise((r) => setTimeout(r, 200)));

    for (const [i, s] of [a, b].entries()) {
      const url = central.url.replace(a.hostAddress, s.hostAddress);
      await api.setCentral(url);
      await api.signIn(central.username, central.password);
      const [result] = await api.push({ ids: [`ENR-NET${i}`], centralUrl: url });
      expect(result?.saved.ok).toBe(true);
      expect(result?.via).toBe('central');
      expect(result?.readBack.config?.centralUrl).toBe(url);
      expect(result?.checkedIn.ok).toBe(true);
    }
  }, 90_000);
});
