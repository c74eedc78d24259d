import { readFile, readdir, readlink } from 'node:fs/promises';
import path from 'node:path';

export interface PortHolder {
  pid: number;
  /** The process name (`/proc/<pid>/comm`). */
  name: string;
  command: string;
}

/**
 * Which processes hold a UDP port, read from `/proc/net/udp` and each process's open sockets
 * (Linux; other systems answer null: they do not let the console see it without tools).
 */
export async function udpPortHolders(
  port: number,
  procRoot = '/proc',
): Promise<PortHolder[] | null> {
  let table: string;
  try {
    table = await readFile(path.join(procRoot, 'net', 'udp'), 'utf8');
  } catch {
    return null;
  }
  const inodes = new Set<string>();
  for (const line of table.split('\n').slice(1)) {
    const cols = line.trim().split(/\s+/);
    const local = cols[1];
    const inode = cols[9];
    if (!local || !inode) continue;
    const hexPort = local.split(':')[1];
    if (hexPort && parseInt(hexPort, 16) === port && inode !== '0') inodes.add(inode);
  }
  if (inodes.size === 0) return [];
  const holders: PortHolder[] = [];
  const pids = (await readdir(procRoot).catch(() => [])).filter((p) => /^\d+$/.test(p));
  for (const pid of pids) {
    const fdDir = path.join(procRoot, pid, 'fd');
    const fds = await readdir(fdDir).catch(() => [] as string[]);
    for (const fd of fds) {
      const target = await readlink(path.join(fdDir, fd)).catch(() => '');
      const m = /^socket:\[(\d+)\]$/.exec(target);
      if (m?.[1] && inodes.has(m[1])) {
        const name = (
          await readFile(path.join(procRoot, pid, 'comm'), 'utf8').catch(() => '?')
        ).trim();
        const command = (
          await readFile(path.join(procRoot, pid, 'cmdline'), 'utf8').catch(() => '')
        )
          .split('\0')
          .filter(Boolean)
          .join(' ')
          .slice(0, 200);
        holders.push({ pid: Number(pid), name, command });
        break;
      }
    }
  }
  return holders;
}
