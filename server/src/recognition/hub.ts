import { EventEmitter } from 'node:events';

/**
 * What the live stream (Server-Sent Events) relays: one named event for the sessions of one
 * organization. In-process only: events accepted by another server process are not relayed.
 */
export interface LiveMessage {
  organizationId: string;
  /** The SSE event name: 'recognition', 'delivery', … (other features may publish their own). */
  event: string;
  data: unknown;
}

export class LiveHub {
  private readonly emitter = new EventEmitter();

  constructor() {
    // Every open stream is a listener; hundreds of open site tabs are normal, not a leak.
    this.emitter.setMaxListeners(0);
  }

  publish(message: LiveMessage): void {
    this.emitter.emit('message', message);
  }

  subscribe(listener: (message: LiveMessage) => void): () => void {
    this.emitter.on('message', listener);
    return () => this.emitter.off('message', listener);
  }

  listenerCount(): number {
    return this.emitter.listenerCount('message');
  }
}

const hubs = new WeakMap<object, LiveHub>();
const aliases = new WeakMap<object, object>();

/** The hub of one running service (keyed by its context, so test servers stay apart). */
export function liveHub(ctx: object): LiveHub {
  ctx = aliases.get(ctx) ?? ctx;
  let hub = hubs.get(ctx);
  if (!hub) {
    hub = new LiveHub();
    hubs.set(ctx, hub);
  }
  return hub;
}

/** `alias` (a context derived from `ctx`, e.g. with its own database connection) shares its hub. */
export function shareLiveHub(alias: object, ctx: object): void {
  aliases.set(alias, aliases.get(ctx) ?? ctx);
}
