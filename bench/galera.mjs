#!/usr/bin/env node
// Galera's price (issue 35 item 7): the sync bench and the recognition bench on a three-node
// Galera cluster on loopback, against the single MariaDB of SVC_TEST_MYSQL_*, in the same run,
// and the ratio of each figure. Galera certifies every commit on all nodes before it returns.
//
//   node bench/galera.mjs [--people 100000] [--devices 20] [--rate 2000] [--seconds 20]
//   (needs galera-4, rsync and `npm run build`; runs as root: the nodes run as `mysql`.)
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { flags } from './lib.mjs';

const args = flags();
const PEOPLE = args.people ?? '100000';
const DEVICES = args.devices ?? '20';
const RATE = args.rate ?? '2000';
const SECONDS = args.seconds ?? '20';
const ROOT = fileURLToPath(new URL('..', import.meta.url));

/** The test suites' cluster (server/src/test/galera-cluster.ts), compiled here by swc. */
async function loadCluster() {
  const { transformFileSync } = await import('@swc/core');
  const dir = mkdtempSync(path.join(os.tmpdir(), 'svc-bench-galera-js-'));
  for (const name of ['galera-cluster', 'mariadb-instance']) {
    const { code } = transformFileSync(path.join(ROOT, `server/src/test/${name}.ts`), {
      jsc: { parser: { syntax: 'typescript' }, target: 'es2022' },
      module: { type: 'es6' },
    });
    writeFileSync(path.join(dir, `${name}.js`), code);
  }
  const mod = await import(pathToFileURL(path.join(dir, 'galera-cluster.js')).href);
  rmSync(dir, { recursive: true, force: true });
  return mod;
}

/** Runs a bench script with `env` added; resolves with what it printed. */
function runBench(script, argv, env) {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [path.join(ROOT, 'bench', script), ...argv], {
      env: { ...process.env, ...env },
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    let out = '';
    child.stdout.on('data', (d) => {
      out += d;
      process.stdout.write(d);
    });
    child.on('exit', (code) =>
      code === 0 ? resolve(out) : reject(new Error(`${script} exited ${code}`)),
    );
  });
}

const num = (text, re) => {
  const m = text.match(re);
  return m ? Number(m[1].replace(/,/g, '')) : NaN;
};

const { GaleraCluster, galeraUnavailable } = await loadCluster();
const missing = galeraUnavailable();
if (missing) {
  console.error(`galera bench skipped: ${missing}`);
  process.exit(1);
}
console.log('galera bench: starting a three-node cluster on loopback');
const cluster = await GaleraCluster.create(3, { bufferPoolMb: 1024 });
try {
  const account = await cluster.appAccount([0, 1, 2], 'svc_bench_galera');
  const galeraEnv = {
    SVC_TEST_MYSQL_USER: account.user,
    SVC_TEST_MYSQL_PASSWORD: account.password,
    SVC_BENCH_DB_NODES: cluster.hostList([0, 1, 2]),
  };
  const syncArgs = ['--db', 'mysql', '--people', PEOPLE, '--devices', DEVICES];
  const recArgs = ['--db', 'mysql', '--rate', RATE, '--seconds', SECONDS];
  const results = {};
  for (const [label, env] of [
    ['single', {}],
    ['galera', galeraEnv],
  ]) {
    console.log(`\n== ${label}: recognition`);
    const rec = await runBench('recognition.mjs', recArgs, env);
    console.log(`\n== ${label}: sync`);
    const sync = await runBench('sync.mjs', syncArgs, env);
    results[label] = {
      intake: num(rec, /intake\s+device → server, max rate\s+([\d.]+) events\/s/),
      p99: num(rec, /loop\s+device → server → display[^\n]*p99 ([\d.]+)/),
      pushesPerS: num(sync, /= ([\d.]+) pushes\/s \(goal/),
      convergedS: num(sync, /pushes in ([\d.]+) s = /),
    };
  }
  const { single, galera } = results;
  const r = (a, b) => (a / b).toFixed(2);
  console.log(
    `\ngalera bench, ${PEOPLE} × ${DEVICES} sync and ${RATE} events/s offered, load average ${os.loadavg()[0].toFixed(1)}:` +
      `\n  recognition intake: single ${single.intake}, galera ${galera.intake} events/s (ratio ${r(galera.intake, single.intake)})` +
      `\n  device POST → display p99: single ${single.p99}, galera ${galera.p99} ms (ratio ${r(galera.p99, single.p99)})` +
      `\n  sync: single ${single.pushesPerS} pushes/s in ${single.convergedS} s, galera ${galera.pushesPerS} pushes/s in ${galera.convergedS} s (ratio ${r(galera.pushesPerS, single.pushesPerS)})`,
  );
} finally {
  await cluster.destroy();
}
