/**
 * Dates, times and numbers through Intl, in the site's language and time zone (a setting,
 * the server's by default): "2026/11/28 14:05" in zh-CN; English keeps the browser's own
 * English conventions (en-US, en-GB, …).
 */
import type { Locale } from '@svc/shared';

let locale: Locale = 'en';
let timeZone: string | undefined;
const cache = new Map<string, Intl.DateTimeFormat | Intl.NumberFormat | Intl.Collator>();

/** The Intl locale of a site language: the browser's own English when it has one. */
function intlLocale(lng: Locale): string {
  if (lng === 'zh-CN') return 'zh-CN';
  const languages = typeof navigator === 'undefined' ? [] : navigator.languages;
  return languages.find((l) => /^en(-|$)/i.test(l)) ?? 'en-US';
}

export function setFormatLocale(lng: Locale): void {
  locale = lng;
  cache.clear();
}

/** The site's time zone (an IANA name); undefined: the browser's own until the setting loads. */
export function setFormatTimeZone(zone: string | undefined): void {
  timeZone = zone;
  cache.clear();
}

/** The zone times are shown in: the site's setting, else the browser's. */
export function shownTimeZone(): string {
  return timeZone ?? Intl.DateTimeFormat().resolvedOptions().timeZone;
}

function dateFormat(name: string, options: Intl.DateTimeFormatOptions): Intl.DateTimeFormat {
  let format = cache.get(name) as Intl.DateTimeFormat | undefined;
  if (format === undefined) {
    format = new Intl.DateTimeFormat(intlLocale(locale), {
      ...options,
      ...(timeZone !== undefined && { timeZone }),
    });
    cache.set(name, format);
  }
  return format;
}

const AGO_UNITS: [Intl.RelativeTimeFormatUnit, number][] = [
  ['day', 86_400],
  ['hour', 3_600],
  ['minute', 60],
  ['second', 1],
];

/** How long ago, from whole seconds, in the largest unit that fits: "5 minutes ago", "5分钟前". */
export function formatAgo(seconds: number): string {
  const [unit, size] = AGO_UNITS.find(([, s]) => seconds >= s) ?? ['second', 1];
  return new Intl.RelativeTimeFormat(intlLocale(locale), { numeric: 'always' }).format(
    -Math.floor(seconds / size),
    unit,
  );
}

/** A moment as the site shows it; "—" for none, the text itself if it is not a date. */
export function formatDateTime(value: string | Date | null): string {
  if (value === null) return '—';
  const at = typeof value === 'string' ? new Date(value) : value;
  if (Number.isNaN(at.getTime())) return typeof value === 'string' ? value : '—';
  // English: what `toLocaleString()` shows (the site's format before it had languages).
  const options: Intl.DateTimeFormatOptions =
    locale === 'zh-CN'
      ? {
          year: 'numeric',
          month: '2-digit',
          day: '2-digit',
          hour: '2-digit',
          minute: '2-digit',
          hourCycle: 'h23',
        }
      : {
          year: 'numeric',
          month: 'numeric',
          day: 'numeric',
          hour: 'numeric',
          minute: 'numeric',
          second: 'numeric',
        };
  return dateFormat('dateTime', options).format(at);
}

/** A calendar day as the site shows it: "3/31/2026", zh-CN "2026/03/31". */
export function formatDate(at: Date): string {
  const options: Intl.DateTimeFormatOptions =
    locale === 'zh-CN'
      ? { year: 'numeric', month: '2-digit', day: '2-digit' }
      : { year: 'numeric', month: 'numeric', day: 'numeric' };
  return dateFormat('dateOnly', options).format(at);
}

/** A time of day, seconds included: "14:05:09" (English: the browser's own, "2:05:09 PM"). */
export function formatClock(at: Date): string {
  const options: Intl.DateTimeFormatOptions =
    locale === 'zh-CN'
      ? { hour: '2-digit', minute: '2-digit', second: '2-digit', hourCycle: 'h23' }
      : { hour: 'numeric', minute: 'numeric', second: 'numeric' };
  return dateFormat('clock', options).format(at);
}

/** "04:12" on `now`'s day, "27 Nov 04:12" (zh-CN "11月27日 04:12") before. */
export function formatDayTime(at: Date, now = new Date()): string {
  const time = dateFormat('hm', { hour: '2-digit', minute: '2-digit', hourCycle: 'h23' });
  const day = dateFormat('day', { day: 'numeric', month: 'short' });
  const date = dateFormat('date', { year: 'numeric', month: 'numeric', day: 'numeric' });
  if (date.format(at) === date.format(now)) return time.format(at);
  return `${day.format(at)} ${time.format(at)}`;
}

/** A count grouped for the locale: "12,345". */
export function formatNumber(value: number): string {
  let number = cache.get('number') as Intl.NumberFormat | undefined;
  if (number === undefined) {
    number = new Intl.NumberFormat(intlLocale(locale));
    cache.set('number', number);
  }
  return number.format(value);
}

/** Compares names as the locale sorts them (pinyin order for Chinese names in zh-CN). */
export function compareNames(a: string, b: string): number {
  let collator = cache.get('collator') as Intl.Collator | undefined;
  if (collator === undefined) {
    collator = new Intl.Collator(locale === 'zh-CN' ? 'zh-CN-u-co-pinyin' : 'en', {
      sensitivity: 'base',
      numeric: true,
    });
    cache.set('collator', collator);
  }
  return collator.compare(a, b);
}
