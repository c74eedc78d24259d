/**
 * The ids seen most recently, at most `limit` of them (the oldest is forgotten first): enough
 * for a display to recognise a delivery repeated after a sender's crash, bounded for a display
 * that runs for months.
 */
export class RecentIds {
  private readonly ids = new Set<string>();

  constructor(private readonly limit: number) {}

  /** True when `id` is new (and now remembered); false when it was seen already. */
  add(id: string): boolean {
    if (this.ids.has(id)) return false;
    this.ids.add(id);
    if (this.ids.size > this.limit) {
      const oldest = this.ids.values().next().value;
      if (oldest !== undefined) this.ids.delete(oldest);
    }
    return true;
  }
}
