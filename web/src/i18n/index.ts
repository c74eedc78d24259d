/**
 * The site's languages (issue 34). This module is all the entry script holds: the engine
 * (./engine.ts: i18next, ICU, the catalogs) loads before the first render, in one wave with the
 * language's catalog, and `t` below reads from it from then on.
 */
import type { i18n as I18n } from 'i18next';
import { useEffect, useState } from 'react';
import { DEFAULT_LOCALE, isLocale, pickLocale, type Locale } from '@svc/shared';
import { setFormatLocale } from './format';

const STORAGE_KEY = 'svc.language';
const PSEUDO_KEY = 'svc.pseudo';

let engine: I18n | null = null;

export type TranslateParams = Record<string, unknown>;

/** A catalog text in the current language (ICU MessageFormat, filled from `params`). */
export function t(key: string, params?: TranslateParams): string {
  return engine === null ? key : engine.t(key, params ?? {});
}

/** Whether a key has a text (in the current language or the English fallback). */
export function exists(key: string, params?: TranslateParams): boolean {
  return engine !== null && engine.exists(key, params);
}

/** The engine itself, for react-i18next's `<Trans>` (a sentence with markup inside). */
export function engineInstance(): I18n {
  if (engine === null) throw new Error('initI18n() has not finished');
  return engine;
}

const listeners = new Set<() => void>();

/** `t` for a component: it renders again when the language changes. */
export function useT(): typeof t {
  const [, setTick] = useState(0);
  useEffect(() => {
    const listener = () => setTick((n) => n + 1);
    listeners.add(listener);
    return () => void listeners.delete(listener);
  }, []);
  return t;
}

/** What the browser asks for (`navigator.languages` is what it sends as Accept-Language). */
export function browserLocale(): Locale {
  return pickLocale(navigator.languages.length > 0 ? navigator.languages : [navigator.language]);
}

/** The last language this browser showed: the first paint before the session answers. */
function rememberedLocale(): Locale | null {
  try {
    const value = localStorage.getItem(STORAGE_KEY);
    return isLocale(value) ? value : null;
  } catch {
    return null;
  }
}

function remember(lng: Locale): void {
  try {
    localStorage.setItem(STORAGE_KEY, lng);
  } catch {
    // A browser that refuses storage still shows the language; the account keeps the choice.
  }
}

function apply(lng: Locale): void {
  document.documentElement.lang = lng;
  setFormatLocale(lng);
}

/**
 * The pseudo-locale (every text wrapped in `[!! … !!]`) for the test that finds text outside
 * the catalogs: asked for with `?pseudo` once, kept for the tab's session (links and reloads).
 */
function pseudoLocale(): boolean {
  try {
    if (new URLSearchParams(window.location.search).has('pseudo')) {
      sessionStorage.setItem(PSEUDO_KEY, '1');
    }
    return sessionStorage.getItem(PSEUDO_KEY) === '1';
  } catch {
    return false;
  }
}

export async function initI18n(): Promise<void> {
  const lng = rememberedLocale() ?? browserLocale();
  const pseudo = pseudoLocale();
  const { createEngine } = await import('./engine');
  engine = await createEngine(lng, pseudo);
  apply(lng);
}

export function currentLocale(): Locale {
  const lng = engine?.language;
  return isLocale(lng) ? lng : DEFAULT_LOCALE;
}

/** Shows the site in `lng` at once (loading its catalog first) and remembers it here. */
export async function showLanguage(lng: Locale): Promise<void> {
  const { ensureLoaded } = await import('./engine');
  const current = engineInstance();
  await ensureLoaded(current, lng);
  remember(lng);
  apply(lng);
  if (current.language !== lng) await current.changeLanguage(lng);
  for (const listener of listeners) listener();
}
