import type { Logger } from './logger.js';

/** Shutdown phases, in the order they run (Outline's ShutdownHelper). */
export const Phase = {
  stopAccepting: 0,
  stopWorkers: 1,
  closeSockets: 2,
  closeDatabase: 3,
} as const;
type PhaseValue = (typeof Phase)[keyof typeof Phase];

export class Shutdown {
  private readonly steps: { phase: PhaseValue; name: string; fn: () => Promise<void> }[] = [];
  private running: Promise<void> | undefined;

  constructor(private readonly logger: Logger) {}

  add(phase: PhaseValue, name: string, fn: () => Promise<void>): void {
    this.steps.push({ phase, name, fn });
  }

  /** Runs every step once, phase by phase; later calls wait for the first. */
  run(): Promise<void> {
    this.running ??= (async () => {
      const ordered = [...this.steps].sort((a, b) => a.phase - b.phase);
      for (const step of ordered) {
        try {
          await step.fn();
          this.logger.info({ step: step.name }, 'shutdown step done');
        } catch (err) {
          this.logger.error({ step: step.name, err }, 'shutdown step failed');
        }
      }
    })();
    return this.running;
  }
}
