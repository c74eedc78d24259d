#!/usr/bin/env node
// Console benchmark (issue 23). Figures, not a test:
//  1. N simulated terminals (tools/sim, real sockets on loopback) all listed through the browser
//     shell within how long of one probe (goal: 2 s for 500);
//  2. the console process's CPU share while N terminals announce every 10 s, against the same
//     console idle;
//  3. handover report generation time (JSON + HTML + PDF) for a full eight-layer report.
//
//   node bench/console.mjs [--terminals 500] [--seconds 30]     (after `npm run build`)
import { fork, spawn } from 'node:child_process';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import { cpuSeconds, flags } from './lib.mjs';

const args = flags();
const N = Number(args.terminals ?? 500);
const SECONDS = Number(args.seconds ?? 30);
const ROOT = fileURLToPath(new URL('..', import.meta.url));
const PORT = Number(args.port ?? 34000 + (process.pid % 20000));

if (args.child === 'sims') await simsChild();

/** The simulated terminals' own process: 500 of them hear each other's announces (250,000
 * deliveries per probe), which would otherwise delay this script's polling of the console. */
async function simsChild() {
  const { startTerminal } = await import(path.join(ROOT, 'tools/sim/dist/index.js'));
  const terminals = [];
  process.on('message', async (msg) => {
    if (msg.type === 'start') {
      for (let i = 0; i < msg.count; i += 50)
        terminals.push(
          ...(await Promise.all(
            Array.from({ length: Math.min(50, msg.count - i) }, (_, j) =>
              startTerminal({
                id: `BENCH-${String(i + j).padStart(4, '0')}`,
                kind: (i + j) % 5 === 0 ? 'display' : 'enrollment',
                httpPort: 0,
                bindAddress: '127.0.0.1',
                discoveryPort: PORT,
                broadcastAddresses: ['127.255.255.255'],
                announceIntervalMs: msg.announceIntervalMs,
                checkinIntervalMs: 0,
              }),
            ),
          )),
        );
      process.send({ type: 'started' });
    } else if (msg.type === 'stop') {
      await Promise.all(terminals.map((t) => t.stop()));
      process.send({ type: 'stopped' }, () => process.exit(0));
    }
  });
  await new Promise(() => {}); // driven over IPC until 'stop'
}

/** N terminals in a child process; resolves once all are listening. */
async function startTerminals(count, announceIntervalMs) {
  const child = fork(fileURLToPath(import.meta.url), ['--child', 'sims', '--port', String(PORT)], {
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  process.once('exit', () => child.kill('SIGKILL'));
  const reply = (type) =>
    new Promise((resolve) => child.on('message', (m) => m.type === type && resolve()));
  child.send({ type: 'start', count, announceIntervalMs });
  await reply('started');
  return {
    pid: child.pid,
    stop: async () => {
      child.send({ type: 'stop' });
      await reply('stopped');
    },
  };
}

/** The real browser shell process, and a session with it (token → cookie). */
async function startConsole(env = {}) {
  const child = spawn(process.execPath, [path.join(ROOT, 'desktop/dist/shell/cli.js')], {
    env: {
      PATH: process.env.PATH,
      DISCOVERY_PORT: String(PORT),
      DISCOVERY_PROBE_ADDRESSES: '127.255.255.255',
      ...env,
    },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  let out = '';
  const url = await new Promise((resolve) => {
    child.stdout.on('data', (c) => {
      out += c;
      const m = /console: (\S+)/.exec(out);
      if (m) resolve(m[1]);
    });
  });
  const origin = new URL(url).origin;
  const first = await fetch(url, { redirect: 'manual' });
  const cookie = first.headers.get('set-cookie').split(';')[0];
  const call = async (method) => {
    const res = await fetch(`${origin}/api/call/${method}`, {
      method: 'POST',
      headers: { cookie, origin, 'content-type': 'application/json' },
      body: '[]',
    });
    return res.json();
  };
  return { child, call };
}

const line = (label, value) => console.log(`${label.padEnd(52)} ${value}`);

// 1. Listed within how long of a probe. The terminals announce only at boot and when probed;
// with DISCOVERY_TIMEOUT=2 they are all offline again before the measured probe.
let terminals = await startTerminals(N, 0);
let con = await startConsole({ DISCOVERY_TIMEOUT: '2' });
await sleep(3500);
const before = (await con.call('list-terminals')).filter((t) => t.online).length;
const t0 = performance.now();
const probedAt = Date.now();
await con.call('probe');
let list = [];
while (list.length < N && performance.now() - t0 < 10_000) {
  await sleep(100);
  list = (await con.call('list-terminals')).filter((t) => t.online);
}
const listedMs = performance.now() - t0;
// When the console heard the last answer (its own clock), apart from this script's polling.
const lastHeardMs = Math.max(...list.map((t) => Date.parse(t.lastSeen))) - probedAt;
const listed = list.length;
line(`terminals online before the probe`, before);
line(
  `terminals listed after one probe`,
  `${listed} / ${N}, seen listed ${listedMs.toFixed(0)} ms after it (goal 2000 ms)`,
);
line(`last answer heard by the console`, `${lastHeardMs} ms after the probe`);
con.child.kill('SIGTERM');
await terminals.stop();

// 2. CPU with N terminals announcing every 10 s (± 1 s), against the console idle.
con = await startConsole();
const pid = con.child.pid;
let c0 = cpuSeconds(pid);
let w0 = performance.now();
await sleep(10_000);
const idle = (cpuSeconds(pid) - c0) / ((performance.now() - w0) / 1000);
terminals = await startTerminals(N, 10_000);
await sleep(11_000); // one full announce round before measuring
c0 = cpuSeconds(pid);
w0 = performance.now();
await sleep(SECONDS * 1000);
const busy = (cpuSeconds(pid) - c0) / ((performance.now() - w0) / 1000);
const online = (await con.call('list-terminals')).filter((t) => t.online).length;
line(
  `console CPU, ${N} terminals announcing every 10 s`,
  `${(busy * 100).toFixed(1)} % of one core (idle ${(idle * 100).toFixed(1)} %), ${online} online`,
);
con.child.kill('SIGTERM');
await terminals.stop();

// 3. Report generation: eight layers, the terminal layer with one line per terminal.
const { LAYERS } = await import(path.join(ROOT, 'desktop/dist/core/acceptance/layers.js'));
const { buildReport, reportJson, reportHtml, sha256 } = await import(
  path.join(ROOT, 'desktop/dist/core/report/report.js')
);
const { reportPdf } = await import(path.join(ROOT, 'desktop/dist/core/report/pdf.js'));
const state = {
  report: null,
  layers: LAYERS.map((l) => ({
    id: l.id,
    title: l.title,
    manualPrompt: l.manual,
    status: 'passed',
    ranAt: new Date().toISOString(),
    error: null,
    manual: l.manual ? { who: 'Bench', at: new Date().toISOString(), note: 'bench' } : null,
    evidence: Array.from({ length: l.id === 'terminals' ? N : 8 }, (_, i) => ({
      label: `fact ${i}`,
      value: `saved / read back / checked in at ${new Date().toISOString()} (http://192.168.1.10)`,
      ok: true,
    })),
  })),
};
const meta = {
  release: '0.1.0',
  host: 'bench',
  centralUrl: 'http://192.168.1.10',
  technician: 'Bench',
  site: 'Bench',
  createdAt: new Date().toISOString(),
};
const times = [];
let pdfBytes = 0;
for (let i = 0; i < 5; i++) {
  const t = performance.now();
  const report = buildReport(state, meta);
  const json = reportJson(report);
  const digest = sha256(json);
  reportHtml(report, digest);
  pdfBytes = (await reportPdf(report, digest)).length;
  times.push(performance.now() - t);
}
times.sort((a, b) => a - b);
line(
  `report (JSON + HTML + PDF, ${N + 7 * 8} evidence lines)`,
  `median ${times[2].toFixed(0)} ms, max ${times[4].toFixed(0)} ms; PDF ${(pdfBytes / 1024).toFixed(0)} KiB`,
);
process.exit(0);
