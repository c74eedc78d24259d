/**
 * `<input type="datetime-local">` speaks local wall-clock time ("2026-11-22T09:30"); the API
 * speaks ISO UTC. These convert between the two in the browser's time zone.
 */
export function isoToLocalInput(iso: string | null): string {
  if (iso === null) return '';
  const at = new Date(iso);
  if (Number.isNaN(at.getTime())) return '';
  const pad = (n: number) => String(n).padStart(2, '0');
  return (
    `${at.getFullYear()}-${pad(at.getMonth() + 1)}-${pad(at.getDate())}` +
    `T${pad(at.getHours())}:${pad(at.getMinutes())}`
  );
}

/** The ISO time of a local input value; null for an empty box, undefined for nonsense. */
export function localInputToIso(value: string): string | null | undefined {
  if (value.trim() === '') return null;
  const at = new Date(value);
  return Number.isNaN(at.getTime()) ? undefined : at.toISOString();
}
