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
