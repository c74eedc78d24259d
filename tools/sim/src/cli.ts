#!/usr/bin/env node
import { readFileSync } from 'node:fs';
import { runSim } from './cli/run.js';

const outcome = await runSim(process.argv.slice(2), {
  out: (line) => process.stdout.write(line + '\n'),
  err: (line) => process.stderr.write(line + '\n'),
  readFile: (path) => readFileSync(path, 'utf8'),
});

if ('exitCode' in outcome) {
  process.exitCode = outcome.exitCode;
} else {
  let stopping = false;
  const stop = (signal: NodeJS.Signals): void => {
    // A second signal while stopping means "now".
    if (stopping) process.exit(1);
    stopping = true;
    process.stdout.write(`stopping (${signal})\n`);
    outcome.running.stop().then(
      () => process.exit(0),
      (error: unknown) => {
        process.stderr.write(`svc-sim: stop failed: ${String(error)}\n`);
        process.exit(1);
      },
    );
  };
  process.on('SIGTERM', stop);
  process.on('SIGINT', stop);
}
