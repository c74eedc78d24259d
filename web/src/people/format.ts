import { wholeDayIn, type PersonOut, type SpaceOut } from '@svc/shared';
import { t } from '../i18n';
import {
  compareNames,
  formatDate,
  formatDateTime,
  formatNumber,
  shownTimeZone,
} from '../i18n/format';

/** "12", "10,000+": `totalCapped` means the server stopped counting. */
export function formatTotal(total: number, capped: boolean): string {
  return `${formatNumber(total)}${capped ? '+' : ''}`;
}

/** A moment in the site's language and time zone (Intl): "2026/11/28 14:05" in zh-CN. */
export function formatTime(iso: string | null): string {
  return formatDateTime(iso);
}

/**
 * A validity bound: the date alone when it is a whole day in the site's zone (from its start,
 * until its end, as a date entered without a time is stored), else date and time.
 */
function formatBound(iso: string, edge: 'from' | 'until'): string {
  const at = new Date(iso);
  if (Number.isNaN(at.getTime())) return iso;
  return wholeDayIn(at, edge, shownTimeZone()) === null ? formatTime(iso) : formatDate(at);
}

/** "Always", "From …", "Until …", "… – …". */
export function formatValidity(person: Pick<PersonOut, 'validFrom' | 'validUntil'>): string {
  const { validFrom, validUntil } = person;
  if (validFrom === null && validUntil === null) return t('people.validity.always');
  if (validUntil === null)
    return t('people.validity.from', { time: formatBound(validFrom!, 'from') });
  if (validFrom === null)
    return t('people.validity.until', { time: formatBound(validUntil, 'until') });
  return t('people.validity.between', {
    from: formatBound(validFrom, 'from'),
    until: formatBound(validUntil, 'until'),
  });
}

export function spaceNames(ids: readonly string[], spaces: readonly SpaceOut[] | null): string {
  if (ids.length === 0) return '—';
  const byId = new Map((spaces ?? []).map((space) => [space.id, space.name]));
  return ids
    .map((id) => byId.get(id) ?? t('people.unknownSpace'))
    .join(t('conflict.listSeparator'));
}

/**
 * A page of people in the locale's name order (pinyin in zh-CN): the server pages by its own
 * name key, the page shown is ordered as the reader expects.
 */
export function byName<T extends { name: string }>(items: readonly T[], descending = false): T[] {
  const sign = descending ? -1 : 1;
  return [...items].sort((a, b) => sign * compareNames(a.name, b.name));
}
