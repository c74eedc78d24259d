import { useSyncExternalStore } from 'react';
import { pickLocale } from '@svc/shared';
import { i18n, setLanguage, t } from '../core/i18n.js';
import type { Language } from '../core/language.js';
import { consoleApi } from './api/console-api.js';

/** The system's language as the window sees it (Electron: the OS's; a browser: its own). */
export function systemLanguage(): Language {
  return pickLocale(navigator.languages.length > 0 ? navigator.languages : [navigator.language]);
}

/**
 * Shows the console in `lng`: the window's texts, and the core's sentences from now on. `keep`
 * makes it the technician's choice, kept with the console's settings.
 */
export async function showLanguage(lng: Language, keep: boolean): Promise<void> {
  await setLanguage(lng);
  document.documentElement.lang = lng;
  await consoleApi.setLanguage(lng, keep);
}

/** Before the first render: the technician's kept choice, else the system's language. */
export async function startLanguage(): Promise<void> {
  const kept = await consoleApi.getSettings().then(
    (s) => s.language,
    () => null,
  );
  await showLanguage(kept ?? systemLanguage(), false);
}

function subscribe(onChange: () => void): () => void {
  i18n.on('languageChanged', onChange);
  return () => i18n.off('languageChanged', onChange);
}

/** `t` for a component: it renders again when the language changes. */
export function useT(): typeof t {
  useSyncExternalStore(subscribe, () => i18n.language);
  return t;
}
