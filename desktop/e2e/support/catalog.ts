import { readFileSync } from 'node:fs';
import path from 'node:path';
import type { Page } from '@playwright/test';

const locales = path.resolve(import.meta.dirname, '..', '..', 'src', 'locales');

/** A catalog text by its dotted key, in `language` ("en", "zh-CN"). */
export function catalogText(language: string, key: string): string {
  let node: unknown = JSON.parse(readFileSync(path.join(locales, `${language}.json`), 'utf8'));
  for (const part of key.split('.')) node = (node as Record<string, unknown>)[part];
  if (typeof node !== 'string') throw new Error(`no catalog text ${key} in ${language}`);
  return node;
}

/** The language the console's window speaks now (its `<html lang>`). */
export async function pageLanguage(page: Page): Promise<string> {
  const lang = await page.evaluate<string>('document.documentElement.lang');
  return lang === 'zh-CN' ? 'zh-CN' : 'en';
}

/**
 * The name the acceptance test person gets at central in the page's language, without its
 * stamp: "Acceptance test" in English, "验收测试" in Chinese.
 */
export async function testPersonPrefix(page: Page): Promise<string> {
  const name = catalogText(await pageLanguage(page), 'evidence.testPersonName');
  return name.replace(/\{\{stamp\}\}/, '').trim();
}
