import { z } from 'zod';

/** The languages the site (and the console) speak; English is the fallback. */
export const LOCALES = ['en', 'zh-CN'] as const;
export const locale = z.enum(LOCALES);
export type Locale = z.infer<typeof locale>;
export const DEFAULT_LOCALE: Locale = 'en';

export function isLocale(value: unknown): value is Locale {
  return typeof value === 'string' && (LOCALES as readonly string[]).includes(value);
}

/**
 * The first supported language of a preference list (`navigator.languages`, or the tags of an
 * `Accept-Language` header in order): any Chinese tag is zh-CN, any other tag's own language
 * must match; nothing supported is English.
 */
export function pickLocale(preferences: readonly string[]): Locale {
  for (const raw of preferences) {
    const tag = raw.trim().toLowerCase();
    if (tag.startsWith('zh')) return 'zh-CN';
    if (tag.startsWith('en')) return 'en';
  }
  return DEFAULT_LOCALE;
}

/** The tags of an `Accept-Language` header, highest weight first. */
export function acceptLanguageTags(header: string | undefined): string[] {
  if (header === undefined) return [];
  return header
    .split(',')
    .map((part, index) => {
      const [tag = '', ...rest] = part.trim().split(';');
      const q = rest.find((p) => p.trim().startsWith('q='));
      const weight = q === undefined ? 1 : Number(q.trim().slice(2));
      return { tag: tag.trim(), weight: Number.isFinite(weight) ? weight : 0, index };
    })
    .filter((t) => t.tag !== '' && t.tag !== '*' && t.weight > 0)
    .sort((a, b) => b.weight - a.weight || a.index - b.index)
    .map((t) => t.tag);
}

/** `PUT /api/auth/me/language`: the administrator's choice (null: back to the browser's). */
export const languageRequest = z.object({ language: locale.nullable() });
export type LanguageRequest = z.infer<typeof languageRequest>;
