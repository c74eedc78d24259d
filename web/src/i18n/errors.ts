import { describeMessage, importColumnName, type FormatText } from '@svc/shared';
import { currentLocale, exists, t } from './index';

type Params = Readonly<Record<string, string | number>>;

/** A shared code's text in the site's language: a field message, else a rule's reason. */
const sharedText: FormatText = (code, params) => {
  for (const group of ['messages', 'reasons']) {
    if (exists(`${group}.${code}`, { ns: 'shared' })) {
      return t(`${group}.${code}`, { ns: 'shared', ...params });
    }
  }
  return code;
};

/** Whether the site has a text for a shared message or reason code. */
const knows = (code: string) =>
  exists(`messages.${code}`, { ns: 'shared' }) || exists(`reasons.${code}`, { ns: 'shared' });

/**
 * A shared message in the site's language, with what its params name said too: an import
 * column by the name the reader's template gives it, a nested problem, a list of reasons.
 */
export function describeShared(code: string, params: Params = {}): string {
  const locale = currentLocale();
  return describeMessage({ code, params }, sharedText, (field) => importColumnName(field, locale));
}

/**
 * The server's answer in the site's language: by code and params, never its English text.
 * `fallback` (the server's English) only in an English session; a code this site has no
 * words for (a newer server's) is said generically in any other language.
 */
export function translateError(code: string, params: Params, fallback: string): string {
  const reason = params.reason;
  // A generic code made specific: a conflict's rule, or a field message's own code.
  if (typeof reason === 'string' && knows(reason)) return describeShared(reason, params);
  if (exists(`errors.${code}`, { ns: 'shared' })) {
    return t(`errors.${code}`, { ns: 'shared', ...params });
  }
  return currentLocale() === 'en' ? fallback : t('errors.unknown', { ns: 'shared' });
}

/** A field's message by its shared code (the server's `fieldCodes`, or a form's own check). */
export function translateMessage(code: string, params: Params = {}, fallback = ''): string {
  return exists(`messages.${code}`, { ns: 'shared' }) ? describeShared(code, params) : fallback;
}

/** Why an import refused a row, in the site's language (its English when kept without codes). */
export function describeRowError(error: {
  error: string;
  reasons?: { code: string; params?: Params | undefined }[] | undefined;
}): string {
  const reasons = error.reasons ?? [];
  if (reasons.length === 0 || !reasons.every((r) => knows(r.code))) return error.error;
  return reasons.map((r) => describeShared(r.code, r.params)).join(' ');
}
