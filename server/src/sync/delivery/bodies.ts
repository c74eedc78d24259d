import type { DevicePersonPut } from '@svc/shared';
import { BODY_CACHE_CHARS } from '../knobs.js';

/**
 * The PUT bodies made for recent people, so every device of a backfill sends the same object
 * and the device client serializes it once. Kept by the person's row object (RunReads keeps one
 * per person and version) and bounded by the photo characters they hold, oldest dropped first:
 * held as long as their rows, a backfill of people with photos of their own held gigabytes.
 */
export class BodyCache<K> {
  private readonly bodies = new Map<K, DevicePersonPut>();
  private chars = 0;

  constructor(private readonly maxChars = BODY_CACHE_CHARS) {}

  /** The body kept for `key`, or the one `make` returns, kept from now on. */
  get(key: K, make: () => DevicePersonPut): DevicePersonPut {
    const kept = this.bodies.get(key);
    if (kept) return kept;
    const body = make();
    this.bodies.set(key, body);
    this.chars += body.photo.length;
    // The devices of a backfill move through the people together: the oldest are done.
    for (const [oldest, old] of this.bodies) {
      if (this.chars <= this.maxChars || oldest === key) break;
      this.bodies.delete(oldest);
      this.chars -= old.photo.length;
    }
    return body;
  }

  get size(): number {
    return this.bodies.size;
  }
}
