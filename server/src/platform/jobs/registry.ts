import type { Logger } from '../logger.js';

/** A background job or process role: started once the database is ready, stopped on shutdown. */
export interface Job {
  readonly name: string;
  start(): Promise<void> | void;
  stop(): Promise<void> | void;
}

export type JobStatus = 'running' | 'stopped' | 'disabled';

/** The one place background work is registered; shutdown stops it in reverse order. */
export class JobRegistry {
  private readonly jobs: { job: Job; enabled: boolean; running: boolean }[] = [];

  constructor(private readonly logger: Logger) {}

  register(job: Job, enabled = true): void {
    if (this.jobs.some((j) => j.job.name === job.name)) {
      throw new Error(`job ${job.name} registered twice`);
    }
    this.jobs.push({ job, enabled, running: false });
  }

  async startAll(): Promise<void> {
    for (const entry of this.jobs) {
      if (!entry.enabled || entry.running) continue;
      await entry.job.start();
      entry.running = true;
      this.logger.info({ job: entry.job.name }, 'job started');
    }
  }

  async stopAll(): Promise<void> {
    for (const entry of [...this.jobs].reverse()) {
      if (!entry.running) continue;
      try {
        await entry.job.stop();
      } catch (err) {
        this.logger.error({ job: entry.job.name, err }, 'job did not stop cleanly');
      }
      entry.running = false;
      this.logger.info({ job: entry.job.name }, 'job stopped');
    }
  }

  status(): Record<string, JobStatus> {
    return Object.fromEntries(
      this.jobs.map((j) => [
        j.job.name,
        j.enabled ? (j.running ? 'running' : 'stopped') : 'disabled',
      ]),
    );
  }
}
