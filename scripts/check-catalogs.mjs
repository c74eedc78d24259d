#!/usr/bin/env node
/**
 * Issue 34's catalog check (part of `npm run lint`), for the site (web/src/locales) and the
 * console (desktop/src/locales): every key of en.json is in zh-CN.json and the other way round,
 * and every key is used by that package's code (a key is used when its full name appears quoted
 * in its sources, or it sits under a key built from a template such as `nav.${section.label}`).
 * Plural forms (`_one`, `_other`, …) count as their base key: Chinese has one form where English
 * has two.
 */
import { readFileSync, readdirSync, statSync } from 'node:fs';
import path from 'node:path';
import { parse, TYPE } from '@formatjs/icu-messageformat-parser';

const repo = path.resolve(import.meta.dirname, '..');
const PLURAL = /_(zero|one|two|few|many|other)$/;

function keys(object, prefix = '') {
  return Object.entries(object).flatMap(([k, v]) =>
    typeof v === 'object' && v !== null ? keys(v, `${prefix}${k}.`) : [`${prefix}${k}`],
  );
}

function text(object, key) {
  return key.split('.').reduce((o, part) => o?.[part], object);
}

/** The values a message names, plural and select arguments and tags included. */
function argumentsOf(elements, into = new Set()) {
  for (const element of elements) {
    if (element.type === TYPE.literal || element.type === TYPE.pound) continue;
    into.add(element.value);
    if (element.options) {
      for (const option of Object.values(element.options)) argumentsOf(option.value, into);
    }
    if (element.children) argumentsOf(element.children, into);
  }
  return into;
}

function sources(dir) {
  return readdirSync(dir).flatMap((name) => {
    const file = path.join(dir, name);
    if (statSync(file).isDirectory()) return name === 'locales' ? [] : sources(file);
    return /\.(ts|tsx|cts)$/.test(name) && !/\.test\.tsx?$/.test(name)
      ? [readFileSync(file, 'utf8')]
      : [];
  });
}

function check(name, root, { icu }) {
  const load = (lng) => JSON.parse(readFileSync(path.join(root, 'locales', `${lng}.json`), 'utf8'));
  const base = (k) => k.replace(PLURAL, '');
  const en = new Set(keys(load('en')).map(base));
  const zh = new Set(keys(load('zh-CN')).map(base));
  const problems = [];
  for (const k of en) if (!zh.has(k)) problems.push(`${name}: zh-CN.json lacks "${k}"`);
  for (const k of zh) if (!en.has(k)) problems.push(`${name}: en.json lacks "${k}" (zh-CN has it)`);

  // Every text is valid ICU MessageFormat, and a key's two texts name the same values (a
  // `{count}` the Chinese forgets would show nothing). Plural forms are i18next's, not ICU's.
  const catalogs = { en: load('en'), 'zh-CN': load('zh-CN') };
  // The site's texts are ICU (i18next-icu); the console's use i18next's own {{value}} form.
  const zhRaw = new Set(icu ? keys(catalogs['zh-CN']) : []);
  for (const k of keys(catalogs.en)) {
    if (!zhRaw.has(k) || PLURAL.test(k)) continue;
    const named = {};
    for (const [lng, catalog] of Object.entries(catalogs)) {
      try {
        named[lng] = [...argumentsOf(parse(String(text(catalog, k)), { ignoreTag: false }))].sort();
      } catch (error) {
        problems.push(
          `${name}: ${lng}.json "${k}" is not valid ICU MessageFormat: ${error.message}`,
        );
      }
    }
    if (named.en && named['zh-CN'] && named.en.join() !== named['zh-CN'].join()) {
      problems.push(
        `${name}: "${k}" names {${named.en.join(', ')}} in en, {${named['zh-CN'].join(', ')}} in zh-CN`,
      );
    }
  }

  const code = sources(root).join('\n');
  // Keys built at run time: `prefix.${...}` names every key under the prefix.
  const dynamicPrefixes = [...code.matchAll(/`([a-zA-Z.]+)\.\$\{/g)].map((m) => `${m[1]}.`);
  for (const k of en) {
    const quoted = code.includes(`'${k}'`) || code.includes(`"${k}"`) || code.includes(`\`${k}\``);
    if (!quoted && !dynamicPrefixes.some((p) => k.startsWith(p))) {
      problems.push(`${name}: "${k}" is in the catalogs but no code uses it`);
    }
  }
  return { problems, count: en.size };
}

const results = [
  ['site', check('site', path.join(repo, 'web', 'src'), { icu: true })],
  ['console', check('console', path.join(repo, 'desktop', 'src'), { icu: false })],
];
const problems = results.flatMap(([, r]) => r.problems);
if (problems.length > 0) {
  console.error(`Catalog check failed:\n- ${problems.join('\n- ')}`);
  process.exit(1);
}
console.log(
  `catalogs: ${results.map(([name, r]) => `${name} ${r.count} keys`).join(', ')}, in en and zh-CN, all used`,
);
