import { HttpError } from '../../platform/http/errors.js';
import { PhotoQueue, RequestGone } from './queue.js';

/** A task that ends when told to, and says whether it ever started. */
function gated() {
  let finish!: () => void;
  const done = new Promise<void>((resolve) => (finish = resolve));
  const task = { started: false, finish, run: () => ((task.started = true), done) };
  return task;
}

const busy = (err: unknown) =>
  err instanceof HttpError && err.status === 503 && Number(err.headers?.['Retry-After']) >= 1;
/** The error a promise ends with (caught at once, so none is ever unhandled). */
const failure = (p: Promise<unknown>) =>
  p.then(
    () => undefined,
    (err: unknown) => err,
  );

/** Issue 32, item 1: the photo queue is bounded, drops the gone and answers 503 in time. */
describe('photo queue', () => {
  test('past its capacity it refuses at once with 503 and Retry-After', async () => {
    const events: string[] = [];
    const queue = new PhotoQueue({
      capacity: 2,
      concurrency: 1,
      timeoutMs: 60_000,
      onEvent: (e) => events.push(e),
    });
    const [a, b] = [gated(), gated()];
    const first = queue.run(a.run);
    const second = queue.run(b.run);
    expect(() => queue.refuseIfFull()).toThrow(HttpError);
    expect(busy(await failure(queue.run(() => Promise.resolve('never'))))).toBe(true);
    expect(events).toEqual(['refused', 'refused']);
    a.finish();
    b.finish();
    await Promise.all([first, second]);
    expect(queue.size).toBe(0);
  });

  test('waiting work whose request has gone is dropped before it starts', async () => {
    const queue = new PhotoQueue({ capacity: 5, concurrency: 1, timeoutMs: 60_000 });
    const [a, b] = [gated(), gated()];
    const running = queue.run(a.run);
    const gone = new AbortController();
    const waiting = queue.run(b.run, { signal: gone.signal });
    expect(queue.size).toBe(2);
    gone.abort();
    await expect(waiting).rejects.toBeInstanceOf(RequestGone);
    expect(queue.size).toBe(1);
    a.finish();
    await running;
    expect(b.started).toBe(false);
  });

  test('a wait past the deadline answers 503, not an error of the server', async () => {
    const queue = new PhotoQueue({ capacity: 5, concurrency: 1, timeoutMs: 50 });
    const [a, b] = [gated(), gated()];
    const running = failure(queue.run(a.run));
    const waiting = failure(queue.run(b.run));
    expect(busy(await waiting)).toBe(true);
    // The running one is past its deadline too; its work goes on and holds its slot till done.
    expect(busy(await running)).toBe(true);
    expect(queue.size).toBe(1);
    a.finish();
    await new Promise((resolve) => setImmediate(resolve));
    expect(queue.size).toBe(0);
    expect(b.started).toBe(false);
  });

  test('background work waits its turn instead of being refused', async () => {
    const queue = new PhotoQueue({ capacity: 1, concurrency: 1, timeoutMs: 50 });
    const a = gated();
    const running = failure(queue.run(a.run));
    const background = queue.run(() => Promise.resolve('row'), { background: true });
    await new Promise((resolve) => setTimeout(resolve, 100));
    a.finish();
    expect(busy(await running)).toBe(true);
    await expect(background).resolves.toBe('row');
  });
});
