// Preloaded into svc_server by bench/photo-burst.mjs (`--import`): every 250 ms, how late the
// event loop ran a timer and how long a trivial fs.stat waited for a thread of libuv's pool.
// One JSON line per second to SVC_BENCH_LOOP_LOG, so a slow heartbeat can be told apart:
// a blocked loop shows in `loopMaxMs`, a starved pool in `poolMaxMs`.
import { appendFileSync } from 'node:fs';
import { stat } from 'node:fs/promises';
import { monitorEventLoopDelay } from 'node:perf_hooks';

const out = process.env.SVC_BENCH_LOOP_LOG;
if (out) {
  const loop = monitorEventLoopDelay({ resolution: 10 });
  loop.enable();
  let poolMax = 0;
  const probe = setInterval(() => {
    const t0 = performance.now();
    void stat('/').then(() => {
      poolMax = Math.max(poolMax, performance.now() - t0);
    });
  }, 250);
  const report = setInterval(() => {
    appendFileSync(
      out,
      `${JSON.stringify({ t: Date.now(), loopMaxMs: loop.max / 1e6, poolMaxMs: poolMax })}\n`,
    );
    loop.reset();
    poolMax = 0;
  }, 1_000);
  probe.unref();
  report.unref();
}
