/**
 * The site's own words in a language, for specs that run in more than one (issue 34): the
 * catalogs the site renders from (web/src/locales, the shared codes' texts), formatted with
 * ICU as the site formats them, tags (<b>, <a>) dropped as the page shows only their text.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { IntlMessageFormat } from 'intl-messageformat';
import { loadSharedTexts, type Locale } from '@svc/shared';
import { webDir } from './env';

export type Words = (key: string, values?: Record<string, string | number>) => string;

type Catalog = Record<string, unknown>;

function lookup(catalog: Catalog, key: string): string {
  const text = key
    .split('.')
    .reduce<unknown>((o, part) => (o as Catalog | undefined)?.[part], catalog);
  if (typeof text !== 'string') throw new Error(`the catalog has no text "${key}"`);
  return text;
}

/** `w('nav.people')`, `w('events.total', { count: 3 })`, `w('shared:errors.not_found')`. */
export async function wordsFor(lng: Locale): Promise<Words> {
  const site = JSON.parse(
    readFileSync(path.join(webDir, 'src', 'locales', `${lng}.json`), 'utf8'),
  ) as Catalog;
  const shared = (await loadSharedTexts(lng)) as unknown as Catalog;
  return (key, values = {}) => {
    const text = key.startsWith('shared:') ? lookup(shared, key.slice(7)) : lookup(site, key);
    const formatted = new IntlMessageFormat(text, lng, undefined, { ignoreTag: true }).format(
      values,
    );
    return String(formatted).replace(/<\/?[a-z]+>/g, '');
  };
}

/** A text with a value the test cannot know (a duration in ms): a pattern matching any number. */
export function withAnyNumber(text: string, placeholder: number): RegExp {
  const escaped = text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  return new RegExp(escaped.replace(String(placeholder), '\\d+'));
}
