import { exists, t } from './index';

type Params = Readonly<Record<string, string | number>>;

/** The server's answer in the site's language: by code and params, never its English text. */
export function translateError(code: string, params: Params, fallback: string): string {
  const reason = params.reason;
  if (typeof reason === 'string') {
    // A generic code made specific: a conflict's rule, or a field message's own code.
    for (const group of ['reasons', 'messages']) {
      if (exists(`${group}.${reason}`, { ns: 'shared' })) {
        return t(`${group}.${reason}`, { ns: 'shared', ...params });
      }
    }
  }
  if (exists(`errors.${code}`, { ns: 'shared' })) {
    return t(`errors.${code}`, { ns: 'shared', ...params });
  }
  return fallback;
}

/** A field's message by its shared code (the server's `fieldCodes`, or a form's own check). */
export function translateMessage(code: string, params: Params = {}, fallback = ''): string {
  return exists(`messages.${code}`, { ns: 'shared' })
    ? t(`messages.${code}`, { ns: 'shared', ...params })
    : fallback;
}
