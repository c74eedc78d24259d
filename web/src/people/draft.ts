/** The person form's values (text boxes hold strings) and how they become a request body. */
import type { PersonCreate, PersonOut, SpaceOut } from '@svc/shared';
import { t } from '../i18n';
import { isoToLocalInput, localInputToIso } from './datetime';

export interface Draft {
  name: string;
  idNumber: string;
  phone: string;
  notes: string;
  spaceIds: string[];
  validFrom: string;
  validUntil: string;
  enabled: boolean;
}

export const draftOf = (person: PersonOut | null): Draft => ({
  name: person?.name ?? '',
  idNumber: person?.idNumber ?? '',
  phone: person?.phone ?? '',
  notes: person?.notes ?? '',
  spaceIds: [...(person?.spaceIds ?? [])].sort(),
  validFrom: isoToLocalInput(person?.validFrom ?? null),
  validUntil: isoToLocalInput(person?.validUntil ?? null),
  enabled: person?.enabled ?? true,
});

/** ISO time of a local input, null when empty, the text itself when nonsense. */
function timeOf(value: string): string | null {
  const iso = localInputToIso(value);
  return iso === undefined ? value : iso;
}

/** The request body of the form's values; a nonsense date stays text so the schema names it. */
export const bodyOf = (draft: Draft): PersonCreate => ({
  name: draft.name,
  idNumber: draft.idNumber,
  phone: draft.phone.trim() === '' ? null : draft.phone,
  notes: draft.notes.trim() === '' ? null : draft.notes,
  spaceIds: draft.spaceIds,
  validFrom: timeOf(draft.validFrom),
  validUntil: timeOf(draft.validUntil),
  enabled: draft.enabled,
});

/**
 * A validity bound the form left as it was keeps its stored instant: the box shows minutes,
 * and a whole day ends at 23:59:59.999, which the box cannot say.
 */
export function keepUntouchedValidity(body: PersonCreate, draft: Draft, person: PersonOut | null) {
  if (person === null) return body;
  const loaded = draftOf(person);
  return {
    ...body,
    ...(draft.validFrom === loaded.validFrom && { validFrom: person.validFrom }),
    ...(draft.validUntil === loaded.validUntil && { validUntil: person.validUntil }),
  };
}

/** The fields' names, for the notice of someone else's changes. */
export const personLabels = (): Partial<Record<keyof Draft, string>> => ({
  name: t('people.name'),
  idNumber: t('people.idNumber'),
  phone: t('people.phone'),
  notes: t('people.notes'),
  spaceIds: t('people.spaces'),
  validFrom: t('people.validFrom'),
  validUntil: t('people.validUntil'),
  enabled: t('people.enabled'),
});

/** A field's value as a person reads it (spaces by name). */
export function showValue(key: keyof Draft, value: unknown, spaces: readonly SpaceOut[]): string {
  if (key === 'spaceIds' && Array.isArray(value)) {
    const names = new Map(spaces.map((s) => [s.id, s.name]));
    return value.length === 0
      ? t('conflict.none')
      : value.map((id) => names.get(String(id)) ?? '?').join(t('conflict.listSeparator'));
  }
  if (typeof value === 'boolean') return value ? t('conflict.yes') : t('conflict.no');
  if (value === '' || value === null) return t('conflict.empty');
  return typeof value === 'string' ? value.replace('T', ' ') : JSON.stringify(value);
}
