import { jest } from '@jest/globals';
import type { AppContext } from '../../platform/context.js';
import type { TaskRow } from '../tasks/rows.js';
import { LiveHub } from '../../recognition/events/hub.js';
import { InFlight } from './inflight.js';
import { SuccessWriter } from './success-writer.js';
import { SUCCESS_WRITE_TRIES } from '../knobs.js';

/**
 * The success writer writes successes together: twenty devices' urgent successes must not become
 * twenty statements queued one behind the other (on SQLite each waits for the one before).
 * A fake database counts the statements and answers after a delay.
 */
describe('SuccessWriter', () => {
  const statements: number[] = [];
  let release: () => void = () => undefined;
  const fakeDeps = {
    live: new LiveHub(),
    sync: {
      db: {
        urgent: <T>(fn: () => Promise<T>) => fn(),
        ordinary: <T>(fn: () => T) => fn(),
        models: { SyncTask: { update: () => Promise.resolve([0]) } },
        sequelize: {
          getDialect: () => 'sqlite',
          // SQLite form: [now, now, then 7 values per task]; answers "all written".
          query: async (_sql: string, opts: { replacements: unknown[] }) => {
            const tasks = (opts.replacements.length - 2) / 7;
            statements.push(tasks);
            await new Promise<void>((resolve) => (release = resolve));
            return [undefined, tasks];
          },
        },
      },
    },
    clock: { now: () => new Date() },
    logger: { warn: () => undefined },
  } as unknown as AppContext;

  const task = (n: number): TaskRow => ({
    id: `task-${n}`,
    organizationId: 'org',
    personId: `person-${n}`,
    deviceId: `device-${n % 20}`,
    action: 'put',
    lane: 'priority',
    nextAttemptAt: new Date(),
    resultVersion: null,
    personVersion: 3,
    photoSha256: 'a'.repeat(64),
    attempts: 0,
  });
  const done = { kind: 'done', result: { version: 3, photoSha256: 'a'.repeat(64) } } as const;
  /** Closes the recorder, letting each statement it writes meanwhile finish. */
  const closeReleasing = async (recorder: SuccessWriter) => {
    let closed = false;
    const closing = recorder.close().then(() => (closed = true));
    while (!closed) {
      release();
      await new Promise((resolve) => setImmediate(resolve));
    }
    await closing;
  };

  test('urgent successes that arrive during a write go together in the next one', async () => {
    const inFlight = new InFlight();
    const recorder = new SuccessWriter(fakeDeps, inFlight);
    inFlight.add(Array.from({ length: 20 }, (_, n) => task(n)));
    recorder.add({ task: task(0), outcome: done }, true);
    // Nineteen more, each urgent, while the first statement is still in flight.
    for (let n = 1; n < 20; n++) recorder.add({ task: task(n), outcome: done }, true);
    const closing = recorder.close();
    while (statements.length < 2) {
      release();
      await new Promise((resolve) => setImmediate(resolve));
    }
    release();
    await closing;
    expect(statements).toEqual([1, 19]);
    // No longer in flight once its success was written.
    expect(inFlight.ids()).toEqual([]);
  });

  test('urgent successes are written on their own, ahead of the bulk ones waiting', async () => {
    statements.length = 0;
    const inFlight = new InFlight();
    const recorder = new SuccessWriter(fakeDeps, inFlight, { delayMs: 60_000, maxItems: 10_000 });
    inFlight.add(Array.from({ length: 32 }, (_, n) => task(n)));
    for (let n = 0; n < 30; n++) recorder.add({ task: task(n), outcome: done });
    // Nothing written yet: bulk successes wait for the delay or a full statement.
    expect(statements).toEqual([]);
    recorder.add({ task: task(30), outcome: done }, true);
    recorder.add({ task: task(31), outcome: done }, true);
    await closeReleasing(recorder);
    // The first urgent one at once, the second (it came during that write) next, then the rest.
    expect(statements).toEqual([1, 1, 30]);
    expect(inFlight.ids()).toEqual([]);
  });

  test('reads wait while two statements of successes are still to be written', async () => {
    statements.length = 0;
    const inFlight = new InFlight();
    const recorder = new SuccessWriter(fakeDeps, inFlight, { delayMs: 60_000, maxItems: 4 });
    inFlight.add(Array.from({ length: 8 }, (_, n) => task(n)));
    let room = false;
    // Four fill a statement (written at once), four more wait behind it: the limit.
    for (let n = 0; n < 7; n++) recorder.add({ task: task(n), outcome: done });
    await recorder.room(); // seven: still room
    recorder.add({ task: task(7), outcome: done });
    const waiting = recorder.room().then(() => (room = true));
    await new Promise((resolve) => setImmediate(resolve));
    expect(room).toBe(false);
    expect(statements).toEqual([4]);
    // The first statement is written: four left, room again (before the second is written).
    release();
    await waiting;
    expect(room).toBe(true);
    await closeReleasing(recorder);
    expect(statements).toEqual([4, 4]);
    expect(inFlight.ids()).toEqual([]);
  });
  test('bulk successes that arrive during a write wait for their timer, then go in one statement', async () => {
    statements.length = 0;
    jest.useFakeTimers({ doNotFake: ['setImmediate'] });
    const turns = async () => {
      for (let i = 0; i < 5; i++) await new Promise((resolve) => setImmediate(resolve));
    };
    try {
      const inFlight = new InFlight();
      const recorder = new SuccessWriter(fakeDeps, inFlight, { delayMs: 100, maxItems: 2000 });
      const bulk = (n: number): TaskRow => ({ ...task(n), lane: 'bulk' });
      inFlight.add(Array.from({ length: 6 }, (_, n) => bulk(n)));
      recorder.add({ task: bulk(0), outcome: done });
      expect(statements).toEqual([]);
      jest.advanceTimersByTime(100);
      expect(statements).toEqual([1]);
      // Five more while that statement is written: not written as soon as it ends.
      for (let n = 1; n < 6; n++) recorder.add({ task: bulk(n), outcome: done });
      release();
      await turns();
      expect(statements).toEqual([1]);
      expect(inFlight.ids()).toHaveLength(5);
      // Their timer: one statement for the five.
      jest.advanceTimersByTime(100);
      await turns();
      expect(statements).toEqual([1, 5]);
      release();
      await recorder.close();
      expect(statements).toEqual([1, 5]);
      expect(inFlight.ids()).toEqual([]);
    } finally {
      jest.useRealTimers();
    }
  });

  test('a success write that loses deadlocks again and again (MySQL) is tried until it is written', async () => {
    let tries = 0;
    const mysqlDeps = {
      ...fakeDeps,
      sync: {
        db: {
          ...fakeDeps.sync.db,
          sequelize: {
            getDialect: () => 'mysql',
            // MySQL form: [7 values per task, then now, now]; deadlocks before it is written.
            query: (_sql: string, opts: { replacements: unknown[] }) => {
              if (++tries < SUCCESS_WRITE_TRIES) {
                return Promise.reject(Object.assign(new Error('deadlock'), { errno: 1213 }));
              }
              return Promise.resolve([undefined, (opts.replacements.length - 2) / 7]);
            },
          },
        },
      },
    } as unknown as AppContext;
    const recorder = new SuccessWriter(mysqlDeps, new InFlight());
    recorder.add({ task: task(1), outcome: done }, true);
    await recorder.close();
    expect(tries).toBe(SUCCESS_WRITE_TRIES);
    expect(SUCCESS_WRITE_TRIES).toBeGreaterThan(4);
  });
});
