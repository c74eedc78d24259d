import type { Logger } from '../logger.js';
import type { Job } from './registry.js';

/**
 * A job that runs `run` every `everyMs`, never overlapping itself; a failed run is logged and
 * the next one happens on schedule. stop() waits for a run in progress.
 */
export function periodicJob(opts: {
  name: string;
  everyMs: number;
  run: () => Promise<unknown>;
  logger: Logger;
}): Job {
  let timer: NodeJS.Timeout | undefined;
  let current: Promise<void> | undefined;
  let stopped = true;

  const tick = () => {
    current = opts
      .run()
      .then(() => undefined)
      .catch((err: unknown) => opts.logger.warn({ job: opts.name, err }, 'job run failed'))
      .finally(() => {
        current = undefined;
        if (!stopped) timer = setTimeout(tick, opts.everyMs).unref();
      });
  };

  return {
    name: opts.name,
    start() {
      stopped = false;
      timer = setTimeout(tick, opts.everyMs).unref();
    },
    async stop() {
      stopped = true;
      clearTimeout(timer);
      await current;
    },
  };
}
