/** The languages the console and its report speak (BCP 47, as browsers and i18next name them). */
export const LANGUAGES = ['en', 'zh-CN'] as const;
export type Language = (typeof LANGUAGES)[number];

/** Each language named in itself, for the switch. */
export const LANGUAGE_NAMES: Record<Language, string> = { en: 'English', 'zh-CN': '简体中文' };

/** A browser's or system's language tag ("zh", "zh-Hans-CN", "en-GB") as one of ours. */
export function pickLanguage(tag: string | null | undefined): Language {
  return /^zh\b/i.test(tag ?? '') ? 'zh-CN' : 'en';
}
