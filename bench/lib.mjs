// Helpers the benchmarks share: flags, free ports, percentiles, CPU time of processes.
import { readdirSync, readFileSync } from 'node:fs';
import { createServer } from 'node:net';

/** `--name value` pairs from the command line. */
export function flags(argv = process.argv.slice(2)) {
  return Object.fromEntries(
    argv.reduce(
      (acc, a, i, all) => (a.startsWith('--') ? [...acc, [a.slice(2), all[i + 1]]] : acc),
      [],
    ),
  );
}

export function freePort() {
  return new Promise((resolve) => {
    const s = createServer().listen(0, '127.0.0.1', () => {
      const { port } = s.address();
      s.close(() => resolve(port));
    });
  });
}

/** p50, p95 and max of a list of milliseconds. */
export function percentiles(samples) {
  const s = [...samples].sort((a, b) => a - b);
  const q = (p) => s[Math.min(s.length - 1, Math.floor(s.length * p))];
  return { p50: q(0.5), p95: q(0.95), max: s[s.length - 1] };
}

/** CPU seconds a process has used (utime + stime from /proc, 100 ticks a second). */
export function cpuSeconds(pid) {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
  return (Number(fields[11]) + Number(fields[12])) / 100;
}

/** CPU seconds of the database server (MariaDB/MySQL on this machine), or 0 when not found. */
export function databaseCpu() {
  for (const pid of readdirSync('/proc').filter((d) => /^\d+$/.test(d))) {
    try {
      const comm = readFileSync(`/proc/${pid}/comm`, 'utf8').trim();
      if (comm === 'mariadbd' || comm === 'mysqld') return cpuSeconds(pid);
    } catch {
      // gone
    }
  }
  return 0;
}
