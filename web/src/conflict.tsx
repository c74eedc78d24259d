/**
 * Lost updates (issue 30): every edit is sent with the record's `etag` as `If-Match`. When
 * someone else saved first, the server answers 412 `edit_conflict` and nothing is written; the
 * form then reads the record again, takes their changes into the fields the administrator left
 * alone, keeps the fields both changed as the administrator typed them, and says which were
 * which, so the next Save is a reviewed one.
 */
import { Alert, List, Text } from '@mantine/core';
import { ErrorCode } from '@svc/shared';
import { useEffect, useRef, useState } from 'react';
import { ApiError } from './api';
import { t, useT } from './i18n';
import { Tx } from './i18n/Tx';

/** One field someone else changed since the form was opened. */
export interface TheirChange {
  label: string;
  /** Their value, as a person reads it. */
  theirs: string;
  /** The administrator's own different value, kept in the form; null: theirs was taken. */
  yours: string | null;
}

export const isEditConflict = (error: unknown): boolean =>
  error instanceof ApiError && error.code === ErrorCode.editConflict;

/** Equal as a form holds them; a list (chosen spaces) in any order. */
const canonical = (v: unknown) =>
  JSON.stringify(Array.isArray(v) ? (v as unknown[]).map(String).sort() : v);
const same = (a: unknown, b: unknown) => canonical(a) === canonical(b);

/**
 * The form's values after someone else's save: `base` is what the form was opened with,
 * `current` the record now, `draft` what the administrator has typed (all in form shape).
 */
export function mergeTheirChanges<D extends object>(
  base: D,
  current: D,
  draft: D,
  labels: Partial<Record<keyof D, string>>,
  show: (key: keyof D, value: D[keyof D]) => string = (_k, v) => display(v),
): { merged: D; changes: TheirChange[] } {
  const merged = { ...draft };
  const changes: TheirChange[] = [];
  for (const key of Object.keys(labels) as (keyof D)[]) {
    if (same(base[key], current[key])) continue;
    const label = labels[key] ?? String(key);
    if (same(draft[key], base[key])) {
      merged[key] = current[key];
      changes.push({ label, theirs: show(key, current[key]), yours: null });
    } else if (!same(draft[key], current[key])) {
      changes.push({ label, theirs: show(key, current[key]), yours: show(key, draft[key]) });
    }
  }
  return { merged, changes };
}

/** What a form's submit needs of its conflict handling (useFormSubmit). */
export interface ConflictReview<V> {
  /** What the form edits ("person", "device"…, in the site's language), for the notice. */
  what: string;
  /** What someone else changed, shown above the form until the next save. */
  changes: TheirChange[] | null;
  clear: () => void;
  /** After a 412: the record read again and merged into `draft`; false when it is gone. */
  review: (draft: V) => Promise<boolean>;
}

export interface TheirChanges<R, V> extends ConflictReview<V> {
  /** The record as the form last read it: its `etag` goes with the next save. */
  base: R;
  setBase: (record: R) => void;
}

/**
 * A form's edit of `record` (absent: a new one, nothing to conflict with), saved over the state
 * it was opened with: when someone else saved first, `reread` fetches the record as it is now,
 * and their changes go into the fields the administrator left alone (mergeTheirChanges).
 */
export function useTheirChanges<R, V extends object>(
  form: { setValues: (values: V) => void },
  record: R,
  how: {
    what: string;
    valuesOf: (record: NonNullable<R>) => V;
    labels: () => Partial<Record<keyof V, string>>;
    /** The record now; undefined when it is gone. */
    reread: (record: NonNullable<R>) => Promise<NonNullable<R> | undefined>;
    show?: (key: keyof V, value: V[keyof V]) => string;
  },
): TheirChanges<R, V> {
  const [base, setBase] = useState(record);
  const [changes, setChanges] = useState<TheirChange[] | null>(null);
  const review = async (draft: V) => {
    if (base === null || base === undefined) return false;
    const current = await how.reread(base);
    if (current === undefined) return false;
    const merged = mergeTheirChanges(
      how.valuesOf(base),
      how.valuesOf(current),
      draft,
      how.labels(),
      how.show,
    );
    setBase(current);
    form.setValues(merged.merged);
    setChanges(merged.changes);
    return true;
  };
  return { what: how.what, base, setBase, changes, clear: () => setChanges(null), review };
}

function display(value: unknown): string {
  if (value === null || value === undefined || value === '') return t('conflict.empty');
  if (typeof value === 'boolean') return value ? t('conflict.yes') : t('conflict.no');
  if (Array.isArray(value)) {
    return value.length === 0
      ? t('conflict.none')
      : value.map(String).join(t('conflict.listSeparator'));
  }
  return typeof value === 'string' ? value : JSON.stringify(value);
}

/** What someone else changed, above the form; shown until the next save. */
export function TheirChangesNotice({
  what,
  changes,
}: {
  /** "person", "device", … (in the site's language) */
  what: string;
  changes: readonly TheirChange[];
}) {
  const t = useT();
  const ref = useRef<HTMLDivElement>(null);
  // Save sits at the form's end: bring the notice at its top into view. A block body: newer
  // Chromium returns a promise from scrollIntoView, which React would take for the effect's
  // cleanup and call when the form closes ("destroy is not a function", the page gone).
  useEffect(() => {
    ref.current?.scrollIntoView({ block: 'nearest' });
  }, [changes]);
  return (
    <Alert
      ref={ref}
      color="yellow"
      title={t('conflict.title', { what })}
      role="alert"
      data-testid="edit-conflict"
    >
      <Text size="sm">{t('conflict.nothingSaved')}</Text>
      {changes.length > 0 ? (
        <List size="sm" mt="xs">
          {changes.map((c) => (
            <List.Item key={c.label}>
              <Tx
                k={c.yours === null ? 'conflict.taken' : 'conflict.kept'}
                values={{ label: c.label, theirs: c.theirs, yours: c.yours ?? '' }}
                components={{ b: <b /> }}
              />
            </List.Item>
          ))}
        </List>
      ) : (
        <Text size="sm" mt="xs">
          {t('conflict.noDifference')}
        </Text>
      )}
    </Alert>
  );
}
