import { instantOfWallClock, wallClockIn } from '@svc/shared';
import { formatDateTime, shownTimeZone } from '../i18n/format';
import { t } from '../i18n';

/**
 * `<input type="datetime-local">` speaks wall-clock time ("2026-11-22T09:30"); the API speaks
 * ISO UTC. These convert between the two in the site's time zone (the one every time on the
 * site is shown in), not the browser's, so a time entered reads back the same.
 */
export function isoToLocalInput(iso: string | null): string {
  if (iso === null) return '';
  const at = new Date(iso);
  if (Number.isNaN(at.getTime())) return '';
  const w = wallClockIn(at, shownTimeZone());
  const pad = (n: number, l = 2) => String(n).padStart(l, '0');
  return `${pad(w.year, 4)}-${pad(w.month)}-${pad(w.day)}T${pad(w.hour)}:${pad(w.minute)}`;
}

const LOCAL = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2})(?::(\d{2})(?:\.(\d{1,3}))?)?$/;

/** The ISO time of a local input value; null for an empty box, undefined for nonsense. */
export function localInputToIso(value: string): string | null | undefined {
  if (value.trim() === '') return null;
  const m = LOCAL.exec(value.trim());
  if (m === null) return undefined;
  const n = (i: number) => Number(m[i] ?? 0);
  const wall = { year: n(1), month: n(2), day: n(3), hour: n(4), minute: n(5), second: n(6) };
  const ms = Number((m[7] ?? '0').padEnd(3, '0'));
  const check = new Date(Date.UTC(wall.year, wall.month - 1, wall.day));
  if (check.getUTCDate() !== wall.day || wall.hour > 23 || wall.minute > 59) return undefined;
  return instantOfWallClock({ ...wall, ms }, shownTimeZone()).toISOString();
}

/**
 * Under a date-and-time box: the zone it speaks and how the site writes such a time (the
 * browser draws the box in its own format, which can differ from the site's).
 */
export function timeInputHelp(): string {
  const example = instantOfWallClock(
    { year: 2026, month: 12, day: 31, hour: 17, minute: 30, second: 0, ms: 0 },
    shownTimeZone(),
  );
  return t('people.form.timeHelp', { zone: shownTimeZone(), example: formatDateTime(example) });
}
