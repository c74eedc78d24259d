import type { PersonOut, SpaceOut } from '@svc/shared';
import { t } from '../i18n';
import { compareNames, formatDateTime, formatNumber } from '../i18n/format';

/** "12", "10,000+": `totalCapped` means the server stopped counting. */
export function formatTotal(total: number, capped: boolean): string {
  return `${formatNumber(total)}${capped ? '+' : ''}`;
}

/** A moment in the site's language and time zone (Intl): "2026/11/28 14:05" in zh-CN. */
export function formatTime(iso: string | null): string {
  return formatDateTime(iso);
}

/** "Always", "From …", "Until …", "… – …". */
export function formatValidity(person: Pick<PersonOut, 'validFrom' | 'validUntil'>): string {
  const { validFrom, validUntil } = person;
  if (validFrom === null && validUntil === null) return t('people.validity.always');
  if (validUntil === null) return t('people.validity.from', { time: formatTime(validFrom) });
  if (validFrom === null) return t('people.validity.until', { time: formatTime(validUntil) });
  return t('people.validity.between', {
    from: formatTime(validFrom),
    until: formatTime(validUntil),
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
