import type { Page } from '@playwright/test';

/**
 * Issue 34's pseudo-locale check: with `?pseudo` every catalog text shows as `[!! … !!]`, so a
 * text a person reads that is not inside such a bracket came from no catalog. Answers those
 * texts (and the attribute texts: aria-label, title, placeholder, alt) as `where: text`.
 *
 * Allowed bare: what has no letters (numbers, times, punctuation), codes (AB-1001, WEB-X1,
 * enrollment.change, URLs, addresses, ids), the words of the test's own data, each language's
 * own name on the language switch (`lang` set on it), and what sits in an element marked
 * `data-server-text` (texts the server recorded in English: the audit log's summaries, a
 * device's or terminal's technical answer), and what nobody reads (hidden from assistive
 * technology and not shown).
 */
export async function unwrappedTexts(page: Page, data: readonly string[]): Promise<string[]> {
  return page.evaluate((dataWords) => {
    const words = new Set(
      dataWords.flatMap((d) => d.split(/[\s›·,;:()（）、，。/]+/u)).filter((w) => w !== ''),
    );
    const letters = /\p{L}/u;
    const code =
      /^(?:[A-Z0-9][A-Z0-9._:-]*|[a-z_]+(?:\.[a-z_]+)+|https?:\/\/\S+|[0-9a-f-]{36}|svc|sqlite|mysql|px)$/u;
    // An IANA time zone ("Asia/Shanghai") is a code too, its words those of the tz database.
    const zone = /^[A-Z][A-Za-z_]+(?:\/[A-Za-z0-9_+-]+)+$/u;
    const fine = (text: string) =>
      zone.test(text.trim()) ||
      text
        .split(/[\s›·,;:()（）、，。"“”'‘’/[\]—]+/u)
        .filter((token) => letters.test(token))
        .every((token) => words.has(token) || code.test(token));
    // Nobody reads an element that is both hidden from assistive technology and not shown
    // (a textarea's autosize measurement copy).
    const unread = (el: Element) =>
      el.closest('[aria-hidden="true"]') !== null &&
      !el.checkVisibility({ visibilityProperty: true, opacityProperty: true });
    const exempt = (el: Element | null) =>
      el !== null && (el.closest('[data-server-text], [lang]:not(html)') !== null || unread(el));
    const describe = (el: Element | null) => {
      const testId = el?.closest('[data-testid]')?.getAttribute('data-testid');
      return `${el?.tagName.toLowerCase() ?? '?'}${testId ? `[${testId}]` : ''}`;
    };

    const problems: string[] = [];
    // Text nodes in document order; a bracket may span several (a <b> inside a sentence).
    const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
    const nodes: Text[] = [];
    for (let n = walker.nextNode(); n !== null; n = walker.nextNode()) {
      const parent = n.parentElement;
      if (parent === null || ['SCRIPT', 'STYLE', 'NOSCRIPT'].includes(parent.tagName)) continue;
      nodes.push(n as Text);
    }
    let depth = 0;
    for (const node of nodes) {
      const text = node.data;
      let bare = '';
      for (let i = 0; i < text.length; i++) {
        if (text.startsWith('[!!', i)) {
          depth++;
          i += 2;
        } else if (text.startsWith('!!]', i)) {
          depth = Math.max(0, depth - 1);
          i += 2;
        } else if (depth === 0) {
          bare += text[i];
        } else {
          bare += ' ';
        }
      }
      if (letters.test(bare) && !fine(bare) && !exempt(node.parentElement)) {
        problems.push(`${describe(node.parentElement)}: ${bare.trim()}`);
      }
    }
    for (const el of document.body.querySelectorAll(
      '[aria-label], [title], [placeholder], [alt]',
    )) {
      for (const attr of ['aria-label', 'title', 'placeholder', 'alt']) {
        const value = el.getAttribute(attr);
        if (value === null || !letters.test(value)) continue;
        const inside = value.replace(/\[!![\s\S]*?!!\]/gu, ' ');
        if (letters.test(inside) && !fine(inside) && !exempt(el)) {
          problems.push(`${describe(el)} @${attr}: ${value}`);
        }
      }
    }
    const title = document.title.replace(/\[!![\s\S]*?!!\]/gu, ' ');
    if (letters.test(title) && !fine(title)) problems.push(`<title>: ${document.title}`);
    return problems;
  }, data);
}
