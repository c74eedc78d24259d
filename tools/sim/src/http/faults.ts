import type { IncomingMessage, ServerResponse } from 'node:http';
import { z } from 'zod';
import type { SimDeps } from '../deps.js';
import type { HttpListener } from '../infra/http-listener.js';
import { sendError } from './io.js';

/**
 * Faults a simulated node can show. They apply to its protocol endpoints (`/api/*`);
 * the simulator's own `/_sim/*` endpoints are exempt, except from `refuse`, which closes the port.
 */
export const faultsSchema = z
  .object({
    /** Stop listening: connections are refused until the fault is cleared. */
    refuse: z.boolean(),
    /** Answer every request 500 with a PROTOCOL §0 body. */
    status500: z.boolean(),
    /** Answer only after this many milliseconds. */
    delayMs: z.number().int().min(0).max(600_000),
    /** This fraction of requests gets its connection destroyed without an answer. */
    dropRate: z.number().min(0).max(1),
    /** Terminal: save a different centralUrl than pushed. Device: store a different photo hash. */
    saveDifferent: z.boolean(),
    /** No outbound traffic: no announces, check-ins or heartbeats (the node goes quiet). */
    mute: z.boolean(),
    /** Answer every request 307 with this Location (a node that points its caller elsewhere). */
    redirectTo: z.url(),
    /** Answer every request 200 with this many bytes of JSON-ish filler, streamed, no length. */
    answerBytes: z
      .number()
      .int()
      .min(1)
      .max(4 * 1024 ** 3),
  })
  .partial()
  .strict();
export type Faults = z.infer<typeof faultsSchema>;

/** The central URL a terminal with `saveDifferent` saves: loopback, so nothing leaves the host. */
export function differentCentralUrl(pushed: string): string {
  return pushed === 'http://127.0.0.1:9' ? 'http://127.0.0.1:7' : 'http://127.0.0.1:9';
}

export interface FaultSwitch {
  current(): Faults;
  /** Replaces every fault (an empty object clears them all). */
  set(faults: Faults): Promise<Faults>;
}

/** Faults behind a switch that opens and closes the port for `refuse`; `onChange` hears changes. */
export function createFaultSwitch(
  listener: HttpListener,
  onChange: (faults: Faults) => void,
): FaultSwitch {
  let faults: Faults = {};
  return {
    current: () => ({ ...faults }),
    async set(next) {
      const previous = JSON.stringify(faults);
      faults = faultsSchema.parse(next);
      await listener.setRefusing(faults.refuse === true);
      if (JSON.stringify(faults) !== previous) onChange({ ...faults });
      return { ...faults };
    },
  };
}

function wait(deps: SimDeps, ms: number): Promise<void> {
  return new Promise((resolve) => deps.clock.schedule(ms, resolve));
}

/**
 * Delays, drops or fails a request as the faults say. Returns true when the request has been
 * consumed (dropped or answered) and the route must not run.
 */
export async function applyRequestFaults(
  faults: Faults,
  req: IncomingMessage,
  res: ServerResponse,
  deps: SimDeps,
): Promise<boolean> {
  if (faults.delayMs) await wait(deps, faults.delayMs);
  if (faults.dropRate && deps.random() < faults.dropRate) {
    req.socket.destroy();
    return true;
  }
  if (faults.status500) {
    sendError(res, 500, 'internal_error', 'simulated failure');
    return true;
  }
  if (faults.redirectTo) {
    res.writeHead(307, { location: faults.redirectTo, 'content-length': '0' }).end();
    return true;
  }
  if (faults.answerBytes) {
    streamFiller(res, faults.answerBytes);
    return true;
  }
  return false;
}

/** `bytes` of filler in 64 KiB writes, each after the last drained (the caller may stop reading). */
function streamFiller(res: ServerResponse, bytes: number): void {
  const piece = Buffer.alloc(64 * 1024, 0x20);
  let left = bytes;
  res.writeHead(200, { 'content-type': 'application/json' });
  const more = (): void => {
    while (left > 0 && !res.destroyed) {
      const n = Math.min(left, piece.length);
      left -= n;
      if (!res.write(n === piece.length ? piece : piece.subarray(0, n))) {
        res.once('drain', more);
        return;
      }
    }
    if (!res.destroyed) res.end();
  };
  res.on('close', () => res.off('drain', more));
  more();
}
