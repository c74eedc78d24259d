import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { promisify } from 'node:util';

const run = promisify(execFile);

/** Why namespaced subnets cannot be made here, or undefined when they can. */
export function netnsUnavailable(): string | undefined {
  if (process.getuid?.() !== 0) return 'network namespaces need root';
  if (!['/usr/sbin/ip', '/sbin/ip', '/usr/bin/ip'].some((p) => existsSync(p))) {
    return 'iproute2 (ip) is not installed';
  }
  return undefined;
}

export interface Subnet {
  bridge: string;
  /** This laptop's address on it (the bridge's). */
  hostAddress: string;
  broadcast: string;
  /** One namespaced host on it. */
  ns: string;
  address: string;
}

/**
 * Two real subnets on one machine: for each, a bridge with an address of the test's own
 * process (the laptop on two networks) and one network namespace behind it (a terminal's host).
 */
export async function createSubnets(
  count: number,
): Promise<{ subnets: Subnet[]; destroy(): Promise<void> }> {
  const tag = String(process.pid % 10_000);
  const made: (() => Promise<unknown>)[] = [];
  const ip = (...args: string[]) => run('ip', args);
  const destroy = async () => {
    for (const undo of made.reverse()) await undo().catch(() => undefined);
  };
  const subnets: Subnet[] = [];
  try {
    for (let i = 0; i < count; i += 1) {
      const prefix = `10.${240 + i}.${100 + (process.pid % 150)}`;
      const bridge = `svcc${i}b${tag}`.slice(0, 15);
      const ns = `svcc${i}n${tag}`;
      const veth = `svcc${i}v${tag}`.slice(0, 15);
      const s: Subnet = {
        bridge,
        hostAddress: `${prefix}.1`,
        broadcast: `${prefix}.255`,
        ns,
        address: `${prefix}.11`,
      };
      await ip('link', 'add', bridge, 'type', 'bridge');
      made.push(() => ip('link', 'del', bridge));
      await ip('addr', 'add', `${s.hostAddress}/24`, 'brd', s.broadcast, 'dev', bridge);
      await ip('link', 'set', bridge, 'up');
      await ip('netns', 'add', ns);
      made.push(() => ip('netns', 'del', ns));
      await ip('link', 'add', veth, 'type', 'veth', 'peer', 'name', 'eth0', 'netns', ns);
      await ip('link', 'set', veth, 'master', bridge, 'up');
      await ip('-n', ns, 'addr', 'add', `${s.address}/24`, 'brd', s.broadcast, 'dev', 'eth0');
      await ip('-n', ns, 'link', 'set', 'eth0', 'up');
      await ip('-n', ns, 'link', 'set', 'lo', 'up');
      subnets.push(s);
    }
  } catch (err) {
    await destroy();
    throw err;
  }
  return { subnets, destroy };
}

/** Runs a Node script inside a namespace; `stop()` ends it with SIGTERM. */
export function inNamespace(
  ns: string,
  args: string[],
): { child: ChildProcess; output(): string; stop(): Promise<void> } {
  const child = spawn('ip', ['netns', 'exec', ns, process.execPath, ...args], {
    env: { PATH: process.env.PATH ?? '/usr/bin:/bin' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout.on('data', (d: Buffer) => (output += d.toString()));
  child.stderr.on('data', (d: Buffer) => (output += d.toString()));
  return {
    child,
    output: () => output,
    stop: async () => {
      if (child.exitCode !== null || child.signalCode !== null) return;
      const exited = new Promise((resolve) => child.once('exit', resolve));
      child.kill('SIGTERM');
      await exited;
    },
  };
}
