/**
 * The i18n engine: i18next with ICU MessageFormat (i18next-icu, intl-messageformat) and the
 * catalogs. A chunk of its own, fetched with the first language's catalog before the first
 * render, so the sign-in page's entry script carries none of it (issue 21's budget).
 */
import i18next, { type i18n as I18n } from 'i18next';
import ICU from 'i18next-icu';
import { DEFAULT_LOCALE, loadSharedTexts, type Locale } from '@svc/shared';

async function loadCatalog(lng: Locale): Promise<Record<string, unknown>> {
  const module =
    lng === 'zh-CN' ? await import('../locales/zh-CN.json') : await import('../locales/en.json');
  return module.default;
}

/** Adds a language's texts (the site's catalog and the shared codes') once. */
export async function ensureLoaded(engine: I18n, lng: Locale): Promise<void> {
  if (engine.hasResourceBundle(lng, 'translation')) return;
  const [catalog, shared] = await Promise.all([loadCatalog(lng), loadSharedTexts(lng)]);
  engine.addResourceBundle(lng, 'translation', catalog, true, true);
  engine.addResourceBundle(lng, 'shared', shared, true, true);
}

/** `pseudo`: every text wrapped in `[!! … !!]`, so any text not from a catalog shows bare. */
export async function createEngine(lng: Locale, pseudo: boolean): Promise<I18n> {
  const engine = i18next.createInstance();
  await engine
    .use(ICU)
    .use({
      type: 'postProcessor',
      name: 'pseudo',
      process: (value: string) => `[!! ${value} !!]`,
    })
    .init({
      lng,
      fallbackLng: DEFAULT_LOCALE,
      ns: ['translation', 'shared'],
      defaultNS: 'translation',
      resources: {},
      partialBundledLanguages: true,
      interpolation: { escapeValue: false },
      ...(pseudo && { postProcess: ['pseudo'] }),
    });
  await Promise.all([ensureLoaded(engine, lng), ensureLoaded(engine, DEFAULT_LOCALE)]);
  await engine.changeLanguage(lng);
  return engine;
}
