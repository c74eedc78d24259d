#!/usr/bin/env node
/**
 * `npm test`: every suite, one step after another, each output line prefixed with its step and
 * a table of steps, seconds and results at the end; a failed step does not stop the others.
 *
 * With `--lanes`, two lanes run side by side: the server's jest suites (mostly waiting on
 * databases, replicas and Galera nodes) beside the browser suites, the second at nice 10 so the
 * server's time-limited suites (Galera's survivor errs within 5 s, replicas killed mid-run) get
 * the cores first. Not yet the default: on two cores the site's suite, at about 20 s a test,
 * comes near its 30 s test limit when it shares them, and the lanes have not been timed on a
 * quiet machine (docs/testing.md).
 *
 *   node scripts/test.mjs            one step after another
 *   node scripts/test.mjs --lanes    two lanes at once
 */
import { spawn } from 'node:child_process';
import path from 'node:path';

const root = path.resolve(import.meta.dirname, '..');
const serial = !process.argv.includes('--lanes');

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
