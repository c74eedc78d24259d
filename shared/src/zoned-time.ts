/**
 * Wall-clock times in an IANA time zone (the site's setting), turned into instants and back,
 * with Intl only. A validity given as a date means whole days in the site's zone: "valid from"
 * the start of the day, "valid until" its last millisecond (server/src/people/validity.ts).
 */

/** YYYY-MM-DD, a calendar day with no time. */
export const DATE_ONLY = /^(\d{4})-(\d{2})-(\d{2})$/;

interface Wall {
  year: number;
  month: number;
  day: number;
  hour: number;
  minute: number;
  second: number;
  ms: number;
}

const formats = new Map<string, Intl.DateTimeFormat>();
function wallFormat(zone: string): Intl.DateTimeFormat {
  let format = formats.get(zone);
  if (format === undefined) {
    format = new Intl.DateTimeFormat('en-US', {
      timeZone: zone,
      hourCycle: 'h23',
      year: 'numeric',
      month: '2-digit',
      day: '2-digit',
      hour: '2-digit',
      minute: '2-digit',
      second: '2-digit',
    });
    formats.set(zone, format);
  }
  return format;
}

/** The wall clock in `zone` at an instant. */
export function wallClockIn(at: Date, zone: string): Wall {
  const parts = Object.fromEntries(
    wallFormat(zone)
      .formatToParts(at)
      .map((p) => [p.type, p.value]),
  );
  return {
    year: Number(parts.year),
    month: Number(parts.month),
    day: Number(parts.day),
    hour: Number(parts.hour) % 24,
    minute: Number(parts.minute),
    second: Number(parts.second),
    ms: ((at.getTime() % 1000) + 1000) % 1000,
  };
}

/** Milliseconds of a wall clock read as UTC; years 0–99 stay themselves (Date.UTC makes them 19xx). */
const asUtc = (w: Wall) => {
  const at = new Date(0);
  at.setUTCFullYear(w.year, w.month - 1, w.day);
  at.setUTCHours(w.hour, w.minute, w.second, w.ms);
  return at.getTime();
};

/** The instant a wall-clock time in `zone` names (the earlier one where a clock goes back). */
export function instantOfWallClock(wall: Wall, zone: string): Date {
  const target = asUtc(wall);
  let guess = target;
  for (let i = 0; i < 3; i++) {
    const offset = asUtc(wallClockIn(new Date(guess), zone)) - guess;
    const next = target - offset;
    if (next === guess) break;
    guess = next;
  }
  return new Date(guess);
}

/** The first instant of a calendar day (YYYY-MM-DD) in `zone`. */
export function startOfDayIn(date: string, zone: string): Date {
  const m = DATE_ONLY.exec(date);
  if (m === null) throw new RangeError(`not a date: ${date}`);
  const [year, month, day] = [Number(m[1]), Number(m[2]), Number(m[3])];
  return instantOfWallClock({ year, month, day, hour: 0, minute: 0, second: 0, ms: 0 }, zone);
}

/** The last millisecond of a calendar day (YYYY-MM-DD) in `zone`. */
export function endOfDayIn(date: string, zone: string): Date {
  const m = DATE_ONLY.exec(date);
  if (m === null) throw new RangeError(`not a date: ${date}`);
  const next = new Date(0);
  next.setUTCFullYear(Number(m[1]), Number(m[2]) - 1, Number(m[3]) + 1);
  const wall = {
    year: next.getUTCFullYear(),
    month: next.getUTCMonth() + 1,
    day: next.getUTCDate(),
    ...{ hour: 0, minute: 0, second: 0, ms: 0 },
  };
  // 9999-12-31 ends in the year 10000, which an ISO time cannot write: the last one it can.
  return new Date(Math.min(instantOfWallClock(wall, zone).getTime() - 1, LAST_ISO_INSTANT));
}

/** 9999-12-31T23:59:59.999Z, the last instant a four-digit ISO time names. */
const LAST_ISO_INSTANT = Date.UTC(9999, 11, 31, 23, 59, 59, 999);

/** True for a real calendar day written YYYY-MM-DD (not 2026-02-30). */
export function isCalendarDate(text: string): boolean {
  if (!DATE_ONLY.test(text)) return false;
  const at = new Date(`${text}T00:00:00.000Z`);
  return !Number.isNaN(at.getTime()) && at.toISOString().slice(0, 10) === text;
}

/**
 * A validity bound as an instant: an ISO time as it is, a date as the start ("from") or the
 * end ("until") of that day in the site's zone.
 */
export function validityInstant(value: string, edge: 'from' | 'until', zone: string): Date {
  if (!DATE_ONLY.test(value)) return new Date(value);
  return edge === 'from' ? startOfDayIn(value, zone) : endOfDayIn(value, zone);
}

/** The calendar day an instant starts (edge "from") or ends (edge "until") in `zone`, if whole. */
export function wholeDayIn(at: Date, edge: 'from' | 'until', zone: string): string | null {
  const w = wallClockIn(at, zone);
  const whole =
    edge === 'from'
      ? w.hour === 0 && w.minute === 0 && w.second === 0 && w.ms === 0
      : w.hour === 23 && w.minute === 59 && w.second === 59 && w.ms === 999;
  if (!whole) return null;
  const pad = (n: number, l = 2) => String(n).padStart(l, '0');
  return `${pad(w.year, 4)}-${pad(w.month)}-${pad(w.day)}`;
}
