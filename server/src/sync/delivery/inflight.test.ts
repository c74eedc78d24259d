import { InFlight } from './inflight.js';

const task = (id: string) => ({ id, deviceId: 'door' });
/** A read that answers at once with these rows. */
const rowsOf =
  (...ids: string[]) =>
  () =>
    Promise.resolve(ids.map(task));

/**
 * A device's read of due tasks races the success writer: the row comes back `pending` from a
 * snapshot taken before the success committed, and the task is settled (no longer in flight)
 * by the time the row arrives. Taken then, it would be pushed a second time at the version the
 * device just acknowledged (once.test.ts saw it under load).
 */
describe('tasks in flight and reads of due tasks', () => {
  test('a task settled while a read ran is not taken from that read', async () => {
    const inFlight = new InFlight();
    inFlight.add([task('pushed')]);
    const read = await inFlight.readFresh(async () => {
      // The snapshot still shows both pending; the success is written before the rows return.
      const rows = [task('pushed'), task('other')];
      await Promise.resolve();
      inFlight.settle('pushed');
      return rows;
    });
    expect(read.map((t) => t.id)).toEqual(['other']);
    expect(inFlight.has('other')).toBe(true);
    expect(inFlight.has('pushed')).toBe(false);
    // The next read (a snapshot after the write) takes it if it is due again (requeued).
    expect((await inFlight.readFresh(rowsOf('pushed'))).map((t) => t.id)).toEqual(['pushed']);
  });

  test('the skip given to the read leaves out tasks in flight and those settled during it', async () => {
    const inFlight = new InFlight();
    inFlight.add([task('a'), task('b')]);
    const seen: Record<string, boolean> = {};
    await inFlight.readFresh((skip) => {
      inFlight.settle('b');
      for (const id of ['a', 'b', 'c']) seen[id] = skip(id);
      return Promise.resolve([]);
    });
    expect(seen).toEqual({ a: true, b: true, c: false });
  });

  test('overlapping reads: a task settled during the older one is left out of it only', async () => {
    const inFlight = new InFlight();
    inFlight.add([task('x')]);
    let releaseOld = () => {};
    const old = inFlight.readFresh(async () => {
      await new Promise<void>((resolve) => (releaseOld = resolve));
      return [task('x')];
    });
    inFlight.settle('x');
    // Started after the settle: its snapshot is newer than the outcome.
    const young = await inFlight.readFresh(rowsOf('x'));
    expect(young.map((t) => t.id)).toEqual(['x']);
    inFlight.settle('x');
    releaseOld();
    expect(await old).toEqual([]);
    // Nothing kept once no read is open.
    expect((await inFlight.readFresh(rowsOf('x'))).map((t) => t.id)).toEqual(['x']);
  });

  test('two overlapping reads of one device take a task once', async () => {
    const inFlight = new InFlight();
    const [a, b] = await Promise.all([
      inFlight.readFresh(rowsOf('t')),
      inFlight.readFresh(rowsOf('t')),
    ]);
    expect([...a, ...b]).toHaveLength(1);
  });
});
