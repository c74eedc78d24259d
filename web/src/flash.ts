/**
 * A sentence for the next page to show once (e.g. "saved without a photo: …" after a create
 * whose photo was refused): kept in memory only, taken by the page that shows it.
 */
const notes = new Map<string, string>();

export function leaveNote(key: string, text: string): void {
  notes.set(key, text);
}

export function takeNote(key: string): string | null {
  const text = notes.get(key) ?? null;
  notes.delete(key);
  return text;
}
