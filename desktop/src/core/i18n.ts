import i18next from 'i18next';
import {
  loadSharedTexts,
  messageCatalog,
  type MessageCode,
  type MessageParams,
  type SharedTexts,
} from '@svc/shared';
import en from '../locales/en.json' with { type: 'json' };
import zhCN from '../locales/zh-CN.json' with { type: 'json' };
import { pickLanguage, type Language } from './language.js';

/**
 * The console's one i18next instance, shared by the core (its sentences, the report) and the
 * renderer (its screens): both catalogs are bundled, so it is ready at once and never fetches.
 * Each side has its own copy (the main process and the window), set to the language the
 * technician reads (`setLanguage`).
 */
export const i18n = i18next.createInstance();
void i18n.init({
  resources: { en: { translation: en }, 'zh-CN': { translation: zhCN } },
  lng: 'en',
  fallbackLng: 'en',
  initAsync: false,
  interpolation: { escapeValue: false },
  returnNull: false,
});

export type Params = Record<string, string | number>;

/** A catalog text in the console's language (plural forms by `count`). */
export function t(key: string, params?: Params): string {
  return i18n.t(key, params ?? {});
}

/** A catalog text in a given language (the report's, when it differs from the screens'). */
export function tIn(lng: Language, key: string, params?: Params): string {
  return i18n.t(key, { ...params, lng });
}

const sharedTexts = new Map<Language, SharedTexts>();

/** Speaks `lng` from now on (its shared field messages loaded first). */
export async function setLanguage(lng: Language): Promise<void> {
  if (!sharedTexts.has(lng)) sharedTexts.set(lng, await loadSharedTexts(lng));
  if (i18n.language !== lng) await i18n.changeLanguage(lng);
}

export function language(): Language {
  return pickLanguage(i18n.language);
}

/** Items joined the way the language lists them ("A, B" or "A、B"). */
export function list(items: readonly string[], lng: Language = language()): string {
  return items.join(tIn(lng, 'report.listSeparator'));
}

/**
 * The shared text of a central service's error code (the site's words for the same answer), in
 * the console's language, or null when there is none to use here: a code the shared texts do
 * not hold, texts not loaded yet, or one that needs ICU plural/select, which only the site runs.
 */
export function sharedError(code: string, params: Params = {}): string | null {
  const errors = sharedTexts.get(language())?.errors as Record<string, string> | undefined;
  const text = errors?.[code];
  if (text === undefined || /\{\w+,/.test(text)) return null;
  const missing = [...text.matchAll(/\{(\w+)\}/g)].some(([, name]) => !(name! in params));
  if (missing) return null;
  return text.replace(/\{(\w+)\}/g, (_all, name: string) => String(params[name]));
}

/**
 * A shared field message (the site's and the console's, by its code in `@svc/shared`) in the
 * console's language: the same sentence the site shows for the same rule.
 */
export function fieldMessage(code: MessageCode, params: MessageParams = {}): string {
  const text = sharedTexts.get(language())?.messages[code] ?? messageCatalog[code];
  return text.replace(/\{(\w+)\}/g, (all, name: string) =>
    name in params ? String(params[name]) : all,
  );
}
