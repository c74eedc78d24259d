import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { promisify } from 'node:util';

const run = promisify(execFile);

/** Why namespaced hosts cannot be made here, or undefined when they can. */
export function netnsUnavailable(): string | undefined {
  if (process.getuid?.() !== 0) return 'network namespaces need root';
  if (!existsSync('/usr/sbin/ip') && !existsSync('/sbin/ip') && !existsSync('/usr/bin/ip')) {
    return 'iproute2 (ip) is not installed';
  }
  return undefined;
}

export interface Lan {
  subnet: string;
  hostAddress: string;
  /** name → address of each namespaced host */
  hosts: Record<string, { ns: string; address: string }>;
  broadcast: string;
  destroy(): Promise<void>;
}

/**
 * A bridge and one network namespace per host, addresses only inside them: a real LAN on one
 * machine. The test's own process reaches the hosts through the bridge's address.
 */
export async function createLan(names: string[]): Promise<Lan> {
  const tag = String(process.pid % 10_000);
  const octet = 100 + (process.pid % 150);
  const subnet = `10.250.${octet}`;
  const bridge = `svcbr${tag}`;
  const made: (() => Promise<unknown>)[] = [];
  const ip = (...args: string[]) => run('ip', args);
  const lan: Lan = {
    subnet: `${subnet}.0/24`,
    hostAddress: `${subnet}.1`,
    broadcast: `${subnet}.255`,
    hosts: {},
    async destroy() {
      for (const undo of made.reverse()) await undo().catch(() => undefined);
    },
  };
  try {
    await ip('link', 'add', bridge, 'type', 'bridge');
    made.push(() => ip('link', 'del', bridge));
    await ip('addr', 'add', `${lan.hostAddress}/24`, 'brd', lan.broadcast, 'dev', bridge);
    await ip('link', 'set', bridge, 'up');
    for (const [i, name] of names.entries()) {
      const ns = `svc${tag}${name}`;
      const veth = `sv${tag}${name}`.slice(0, 15);
      const address = `${subnet}.${11 + i}`;
      await ip('netns', 'add', ns);
      made.push(() => ip('netns', 'del', ns));
      await ip('link', 'add', veth, 'type', 'veth', 'peer', 'name', 'eth0', 'netns', ns);
      await ip('link', 'set', veth, 'master', bridge, 'up');
      await ip('-n', ns, 'addr', 'add', `${address}/24`, 'brd', lan.broadcast, 'dev', 'eth0');
      await ip('-n', ns, 'link', 'set', 'eth0', 'up');
      await ip('-n', ns, 'link', 'set', 'lo', 'up');
      lan.hosts[name] = { ns, address };
    }
  } catch (err) {
    await lan.destroy();
    throw err;
  }
  return lan;
}
