import { setTimeout as sleep } from 'node:timers/promises';
import { SIGNED_IN_PASSWORD } from './admins.js';
import { TestClient } from './http-client.js';

/**
 * Posts one recognition event as a device does: to whichever replica answers, the same event
 * again after a failure or a non-2xx answer, until one accepts it or `ms` have passed.
 */
export async function postUntilAccepted(
  urls: string[],
  first: number,
  key: string,
  body: Record<string, unknown>,
  ms = 120_000,
): Promise<boolean> {
  const deadline = Date.now() + ms;
  for (let i = first; Date.now() < deadline; i++) {
    const url = urls[i % urls.length]!;
    try {
      const res = await fetch(`${url}/api/recognition/events`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: `Bearer ${key}` },
        body: JSON.stringify(body),
        signal: AbortSignal.timeout(10_000),
      });
      await res.arrayBuffer();
      if (res.status >= 200 && res.status < 300) return true;
    } catch {
      // Refused, reset or timed out: the next replica, as a device would.
    }
    await sleep(250);
  }
  return false;
}

interface Probe {
  at: number;
  ok: boolean;
}

/**
 * Sign-in and heartbeat through one replica, polled side by side while things are killed: a
 * probe that fails counts from its start to the start of the next, and the seconds of error
 * are the union of those spans over both kinds.
 */
export class Outages {
  private readonly probes = { heartbeat: [] as Probe[], signIn: [] as Probe[] };
  private running = true;
  private loops: Promise<void>[] = [];

  watch(url: string, username: string): void {
    const heartbeat = async () => {
      const res = await fetch(`${url}/api/heartbeat`, { signal: AbortSignal.timeout(10_000) });
      const body = (await res.json()) as { state?: number };
      return res.status === 200 && body.state === 1;
    };
    const signIn = async () =>
      (await new TestClient(url).login(username, SIGNED_IN_PASSWORD)).status === 200;
    this.loops = [
      this.loop(this.probes.heartbeat, heartbeat, 250),
      this.loop(this.probes.signIn, signIn, 1_000),
    ];
  }

  private async loop(into: Probe[], probe: () => Promise<boolean>, everyMs: number) {
    while (this.running) {
      const at = Date.now();
      into.push({ at, ok: await probe().catch(() => false) });
      await sleep(Math.max(0, everyMs - (Date.now() - at)));
    }
    into.push({ at: Date.now(), ok: true });
  }

  async stop(): Promise<void> {
    this.running = false;
    await Promise.all(this.loops);
  }

  private spans(): [number, number][] {
    const spans: [number, number][] = [];
    for (const list of Object.values(this.probes)) {
      for (let i = 0; i + 1 < list.length; i++) {
        if (!list[i]!.ok) spans.push([list[i]!.at, list[i + 1]!.at]);
      }
    }
    return spans.sort((x, y) => x[0] - y[0]);
  }

  /** Seconds during which sign-in or the heartbeat failed (the union of the failing spans). */
  errorSeconds(): number {
    let total = 0;
    let end = -Infinity;
    for (const [from, to] of this.spans()) {
      const start = Math.max(from, end);
      if (to > start) total += to - start;
      end = Math.max(end, to);
    }
    return total / 1000;
  }

  summary(): string {
    const failed = (l: Probe[]) => l.filter((p) => !p.ok).length;
    const { heartbeat, signIn } = this.probes;
    return `heartbeat ${failed(heartbeat)} of ${heartbeat.length} failed, sign-in ${failed(signIn)} of ${signIn.length}`;
  }
}
