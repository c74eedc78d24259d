import { Waker } from './wake-signal.js';

const elapsed = async (wait: Promise<void>): Promise<number> => {
  const start = performance.now();
  await wait;
  return performance.now() - start;
};

describe('Waker', () => {
  test('a wait ends when woken, long before its time', async () => {
    const waker = new Waker();
    const waiting = elapsed(waker.wait(60_000));
    const other = elapsed(waker.wait(60_000));
    waker.wake();
    expect(await waiting).toBeLessThan(1_000);
    expect(await other).toBeLessThan(1_000);
  });

  test('a wake with nobody waiting ends the next wait at once, once', async () => {
    const waker = new Waker();
    waker.wake();
    expect(await elapsed(waker.wait(60_000))).toBeLessThan(1_000);
    let ended = false;
    const next = waker.wait(200).then(() => (ended = true));
    await new Promise((r) => setTimeout(r, 50));
    expect(ended).toBe(false);
    await next;
  });

  test('a wait ends at its time, or when its signal aborts', async () => {
    const waker = new Waker();
    expect(await elapsed(waker.wait(30))).toBeGreaterThanOrEqual(25);
    const abort = new AbortController();
    const waiting = elapsed(waker.wait(60_000, abort.signal));
    abort.abort();
    expect(await waiting).toBeLessThan(1_000);
  });
});
