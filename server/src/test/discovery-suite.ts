import { startTerminal, type TerminalHandle, type TerminalOptions } from '@svc/sim';
import type { Clock } from '../platform/clock.js';
import type { Infrastructure } from '../platform/server.js';
import type { DialectName } from './dialects.js';
import { TestClient } from './http-client.js';
import { freePort } from './mariadb-instance.js';
import { suiteServer, type SuiteServer } from './suite.js';
import { waitFor } from './wait.js';

export interface DiscoverySuiteOptions {
  /** Added to the discovery worker's settings (SVC_PUSH_WORKER, DISCOVERY_MAX_NODES, …). */
  env?: Record<string, string>;
  /** Added to `discoveryFlushEveryMs: 50` (a terminal client of the test's own). */
  infra?: Infrastructure;
  clock?: Clock;
}

/** A terminal of the suite; `listed: false` does not wait for the node list to show it. */
export type SuiteTerminalOptions = Pick<TerminalOptions, 'id' | 'kind'> &
  Partial<TerminalOptions> & { listed?: boolean };

export interface DiscoverySuite extends SuiteServer {
  /** The UDP port the server's discovery worker listens on. */
  readonly udpPort: number;
  /**
   * A simulated terminal on loopback that announces to the suite's server only when told
   * (no periodic announce or check-in), stopped with the suite. By default it resolves once
   * the node list shows the terminal.
   */
  terminal(options: SuiteTerminalOptions): Promise<TerminalHandle>;
}

/** The ids the node list shows to a client without a session (the trusted console's view). */
export async function listedNodeIds(server: { url: string }): Promise<string[]> {
  const reply = await new TestClient(server.url).get('/api/discovery/nodes');
  return (reply.body as { id: string }[]).map((n) => n.id);
}

/**
 * `suiteServer` with the discovery worker on a free UDP port (central address 192.0.2.10) and
 * simulated terminals announcing to it.
 */
export function discoverySuite(
  dialect: DialectName,
  { env = {}, infra = {}, clock }: DiscoverySuiteOptions = {},
): DiscoverySuite {
  let udpPort: number | undefined;
  const running: TerminalHandle[] = [];
  // Declared before the server's hooks: the terminals stop before the server does.
  afterAll(async () => {
    await Promise.all(running.map((t) => t.stop()));
  });
  const suite = suiteServer(dialect, async () => {
    udpPort = await freePort();
    return {
      ...(clock && { clock }),
      env: {
        SVC_DISCOVERY_WORKER: '1',
        DISCOVERY_PORT: String(udpPort),
        DISCOVERY_HOST: '192.0.2.10',
        ...env,
      },
      infra: { discoveryFlushEveryMs: 50, ...infra },
    };
  });
  const port = () => {
    if (udpPort === undefined) throw new Error('the discovery port is chosen in beforeAll');
    return udpPort;
  };
  return {
    get server() {
      return suite.server;
    },
    get scratch() {
      return suite.scratch;
    },
    get udpPort() {
      return port();
    },
    async terminal({ listed = true, ...options }) {
      const t = await startTerminal({
        bindAddress: '127.0.0.1',
        httpPort: 0,
        discoveryPort: port(),
        broadcastAddresses: ['127.255.255.255'],
        announceIntervalMs: 0,
        checkinIntervalMs: 0,
        listenForProbes: false,
        ...options,
      });
      running.push(t);
      if (listed) {
        await waitFor(
          () => listedNodeIds(suite.server),
          (ids) => ids.includes(t.id),
          { what: `terminal ${t.id} listed` },
        );
      }
      return t;
    },
  };
}
