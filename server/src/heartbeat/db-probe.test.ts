import { createDbProbe } from './db-probe.js';

/** A ping whose answers the test releases one by one. */
function controlledPing() {
  const pending: ((ok: boolean) => void)[] = [];
  let calls = 0;
  return {
    ping: () =>
      new Promise<boolean>((resolve) => {
        calls += 1;
        pending.push(resolve);
      }),
    answer(ok: boolean) {
      const next = pending.shift();
      if (!next) throw new Error('no ping in flight');
      next(ok);
    },
    get calls() {
      return calls;
    },
  };
}

describe('heartbeat database probe', () => {
  let t = 0;
  const now = () => t;
  beforeEach(() => {
    t = 1_000_000;
  });

  it('concurrent checks share one ping and all get its answer', async () => {
    const db = controlledPing();
    const probe = createDbProbe(db.ping, { now });
    const answers = Promise.all(Array.from({ length: 50 }, () => probe.check()));
    expect(db.calls).toBe(1);
    db.answer(true);
    expect(await answers).toEqual(Array.from({ length: 50 }, () => true));
    expect(db.calls).toBe(1);
  });

  it('reuses a result for less than a second from the start of its check, then checks again', async () => {
    const db = controlledPing();
    const probe = createDbProbe(db.ping, { now });
    const first = probe.check();
    t += 300; // the check itself took 300 ms
    db.answer(true);
    expect(await first).toBe(true);
    t += 699; // 999 ms after the check started
    expect(await probe.check()).toBe(true);
    expect(db.calls).toBe(1);
    t += 1; // 1,000 ms: stale
    const second = probe.check();
    expect(db.calls).toBe(2);
    db.answer(false);
    expect(await second).toBe(false);
  });

  it('a database that went down shows at the first check after the second has passed', async () => {
    const db = controlledPing();
    const probe = createDbProbe(db.ping, { now });
    const up = probe.check();
    db.answer(true);
    expect(await up).toBe(true);
    t += 1_000;
    const down = probe.check();
    db.answer(false);
    expect(await down).toBe(false);
    t += 500;
    expect(await probe.check()).toBe(false);
    expect(db.calls).toBe(2);
  });

  it('a failing ping counts as down and is shared too', async () => {
    let calls = 0;
    const probe = createDbProbe(
      () => {
        calls += 1;
        return Promise.reject(new Error('connection refused'));
      },
      { now },
    );
    expect(await Promise.all([probe.check(), probe.check()])).toEqual([false, false]);
    expect(calls).toBe(1);
  });

  it('a check still in flight after a second is shared, not doubled', async () => {
    const db = controlledPing();
    const probe = createDbProbe(db.ping, { now });
    const slow = probe.check();
    t += 2_000; // a ping waiting for its timeout on an unreachable database
    const late = probe.check();
    expect(db.calls).toBe(1);
    db.answer(false);
    expect(await Promise.all([slow, late])).toEqual([false, false]);
  });
});
