#!/usr/bin/env node
/**
 * `npm test`: every suite, in two lanes that run side by side. The server's jest suites spend
 * most of their time waiting on databases, replicas and Galera nodes, the browser suites on
 * Chromium: side by side they fill two cores where one after the other they left one idle
 * (figures in docs/testing.md). Each lane runs its steps in order and goes on after a failure,
 * so one run shows every failing step; the exit status is non-zero when any step failed. The
 * second lane runs at a lower priority (nice 10): the server lane holds the suites with time
 * limits under load (Galera's survivor errs within 5 s, replicas killed mid-run), and they get
 * the cores first; the browsers take what is left.
 *
 *   node scripts/test.mjs            both lanes at once
 *   node scripts/test.mjs --serial   one step after another (to read one suite's output whole)
 */
import { spawn } from 'node:child_process';
import path from 'node:path';

const root = path.resolve(import.meta.dirname, '..');
const serial = process.argv.includes('--serial');

/** A lane's steps run in order; lanes run at the same time. */
const lanes = [
  {
    nice: false,
    steps: [{ name: 'server', command: ['npm', 'run', 'test', '-w', '@svc/server'] }],
  },
  {
    nice: true,
    steps: [
      { name: 'web', command: ['npm', 'run', 'test', '-w', '@svc/web'] },
      { name: 'desktop', command: ['npm', 'run', 'test', '-w', '@svc/desktop'] },
      { name: 'shared', command: ['npm', 'run', 'test', '-w', '@svc/shared'] },
      { name: 'sim', command: ['npm', 'run', 'test', '-w', '@svc/sim'] },
      { name: 'deploy', command: ['bash', 'deploy/test/run.sh'] },
    ],
  },
];

/** Runs one step with each output line prefixed by its name; resolves to its result. */
function runStep(step, nice) {
  const started = Date.now();
  return new Promise((resolve) => {
    const [file, ...args] = nice ? ['nice', '-n', '10', ...step.command] : step.command;
    const child = spawn(file, args, { cwd: root, stdio: ['ignore', 'pipe', 'pipe'] });
    const prefix = `[${step.name}] `;
    for (const stream of [child.stdout, child.stderr]) {
      let partial = '';
      stream.setEncoding('utf8');
      stream.on('data', (chunk) => {
        const lines = (partial + chunk).split('\n');
        partial = lines.pop() ?? '';
        if (lines.length > 0) process.stdout.write(lines.map((l) => prefix + l + '\n').join(''));
      });
      stream.on('end', () => {
        if (partial !== '') process.stdout.write(prefix + partial + '\n');
      });
    }
    const finish = (code) =>
      resolve({ name: step.name, code, seconds: Math.round((Date.now() - started) / 1000) });
    child.on('error', (error) => {
      process.stdout.write(`${prefix}could not start: ${error.message}\n`);
      finish(127);
    });
    child.on('close', (code, signal) => finish(code ?? (signal === null ? 1 : 128)));
  });
}

async function runLane({ nice, steps }) {
  const results = [];
  for (const step of steps) results.push(await runStep(step, nice));
  return results;
}

const results = serial
  ? await runLane({ nice: false, steps: lanes.flatMap((lane) => lane.steps) })
  : (await Promise.all(lanes.map((lane) => runLane(lane)))).flat();

const failed = results.filter((r) => r.code !== 0);
process.stdout.write('\n==> npm test, step by step\n');
for (const r of results) {
  process.stdout.write(
    `${r.name.padEnd(8)} ${String(r.seconds).padStart(5)} s  ${r.code === 0 ? 'passed' : `FAILED (exit ${r.code})`}\n`,
  );
}
process.stdout.write(`steps: ${results.length - failed.length} passed, ${failed.length} failed\n`);
process.exitCode = failed.length === 0 ? 0 : 1;
