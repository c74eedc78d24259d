#!/usr/bin/env node
/**
 * Issue 34's catalog check (part of `npm run lint`), for the site (web/src/locales) and the
 * console (desktop/src/locales): every key of en.json is in zh-CN.json and the other way round,
 * and every key is used by that package's code (a key is used when its full name appears quoted
 * in its sources, or it sits under a key built from a template such as `nav.${section.label}`).
 * Plural forms (`_one`, `_other`, …) count as their base key: Chinese has one form where English
 * has two.
 *
 * It also reads the "Words not to use" table of docs/glossary.md and fails when a zh-CN catalog
 * (the site's, the console's, or the shared texts of shared/src/locales) holds such a word outside
 * the keys the table allows it in (推送 is the panel's delivery, never a push to a terminal). A
 * self-test plants a bad entry first, so a broken rule reader cannot pass silently.
 */
import { readFileSync, readdirSync, statSync } from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { parse, TYPE } from '@formatjs/icu-messageformat-parser';
import ts from 'typescript';

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

/**
 * The glossary's "Words not to use" rows: the words, the word to use instead, and the keys
 * (`site:delivery.*`, `console:push.title`, `shared:errors.x`) where the word is right.
 */
export function wordRules(markdown) {
  const section = markdown.split(/^## Words not to use\s*$/m)[1]?.split(/^## /m)[0];
  if (!section) throw new Error('docs/glossary.md has no "## Words not to use" section');
  const rows = section.split('\n').filter((line) => line.startsWith('|'));
  return rows.slice(2).map((line) => {
    const cells = line
      .split('|')
      .slice(1, -1)
      .map((cell) => cell.trim());
    return {
      words: cells[0].split(/[,、]\s*/).filter(Boolean),
      instead: cells[1],
      allowed: [...(cells[3] ?? '').matchAll(/`(site|console|shared):([^`]+)`/g)].map((m) => ({
        catalog: m[1],
        pattern: m[2],
      })),
    };
  });
}

function allows(rule, catalog, key) {
  return rule.allowed.some(
    (a) =>
      a.catalog === catalog &&
      (a.pattern.endsWith('*') ? key.startsWith(a.pattern.slice(0, -1)) : key === a.pattern),
  );
}

/** The zh-CN texts of `catalog` ('site', 'console' or 'shared') that use a word the glossary bans. */
export function misusedWords(catalog, texts, rules) {
  const problems = [];
  for (const key of keys(texts)) {
    const value = String(text(texts, key));
    for (const rule of rules) {
      for (const word of rule.words) {
        if (value.includes(word) && !allows(rule, catalog, key)) {
          problems.push(
            `${catalog}: zh-CN "${key}" says ${word}; the glossary says ${rule.instead} (docs/glossary.md, "Words not to use")`,
          );
        }
      }
    }
  }
  return problems;
}

/** The shared texts (a TypeScript module with type imports only), read without a build. */
async function sharedZh() {
  const source = readFileSync(path.join(repo, 'shared', 'src', 'locales', 'zh-CN.ts'), 'utf8');
  const { outputText } = ts.transpileModule(source, {
    compilerOptions: { module: ts.ModuleKind.ESNext, target: ts.ScriptTarget.ES2022 },
  });
  const module = await import(
    `data:text/javascript;base64,${Buffer.from(outputText).toString('base64')}`
  );
  return module.zhCN;
}

/** The rule reader and matcher catch a planted bad entry and let an allowed one through. */
export function selfTest(rules) {
  const planted = misusedWords('console', { push: { title: '推送中心服务地址' } }, rules);
  const allowed = misusedWords('site', { delivery: { waiting: '等待推送' } }, rules);
  return planted.length === 1 && allowed.length === 0
    ? []
    : [
        `word check self-test: a planted "推送" for a terminal push gave ${planted.length} problems (want 1), an allowed panel delivery gave ${allowed.length} (want 0)`,
      ];
}

async function main() {
  const rules = wordRules(readFileSync(path.join(repo, 'docs', 'glossary.md'), 'utf8'));
  const zh = (pkg) =>
    JSON.parse(readFileSync(path.join(repo, pkg, 'src', 'locales', 'zh-CN.json'), 'utf8'));
  const results = [
    ['site', check('site', path.join(repo, 'web', 'src'), { icu: true })],
    ['console', check('console', path.join(repo, 'desktop', 'src'), { icu: false })],
  ];
  const problems = [
    ...results.flatMap(([, r]) => r.problems),
    ...selfTest(rules),
    ...misusedWords('site', zh('web'), rules),
    ...misusedWords('console', zh('desktop'), rules),
    ...misusedWords('shared', await sharedZh(), rules),
  ];
  if (problems.length > 0) {
    console.error(`Catalog check failed:\n- ${problems.join('\n- ')}`);
    process.exit(1);
  }
  console.log(
    `catalogs: ${results.map(([name, r]) => `${name} ${r.count} keys`).join(', ')}, in en and zh-CN, all used; ${rules.length} glossary words kept out`,
  );
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) await main();
