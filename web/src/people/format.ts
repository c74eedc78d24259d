import type { PersonOut, SpaceOut } from '@svc/shared';

/** "12", "10,000+": `totalCapped` means the server stopped counting. */
export function formatTotal(total: number, capped: boolean): string {
  return `${total.toLocaleString('en-US')}${capped ? '+' : ''}`;
}

export function formatTime(iso: string | null): string {
  if (iso === null) return '—';
  const at = new Date(iso);
  return Number.isNaN(at.getTime()) ? iso : at.toLocaleString();
}

/** "Always", "From …", "Until …", "… – …". */
export function formatValidity(person: Pick<PersonOut, 'validFrom' | 'validUntil'>): string {
  const { validFrom, validUntil } = person;
  if (validFrom === null && validUntil === null) return 'Always';
  if (validUntil === null) return `From ${formatTime(validFrom)}`;
  if (validFrom === null) return `Until ${formatTime(validUntil)}`;
  return `${formatTime(validFrom)} – ${formatTime(validUntil)}`;
}

export function spaceNames(ids: readonly string[], spaces: readonly SpaceOut[] | null): string {
  if (ids.length === 0) return '—';
  const byId = new Map((spaces ?? []).map((space) => [space.id, space.name]));
  return ids.map((id) => byId.get(id) ?? 'Unknown space').join(', ');
}
