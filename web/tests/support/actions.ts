import type { Page } from '@playwright/test';

/**
 * Counts what a person does in the page (issue 30: the first session's manual actions): each
 * click, each field typed into (once per field until another is touched), each file picked and
 * each key pressed outside a text field. Kept in sessionStorage, so a reload does not reset it.
 */
export async function countActions(page: Page): Promise<() => Promise<ActionCount>> {
  await page.addInitScript(() => {
    const KEY = 'svc-test-actions';
    const read = (): { clicks: number; fields: number; keys: number } =>
      JSON.parse(sessionStorage.getItem(KEY) ?? '{"clicks":0,"fields":0,"keys":0}') as {
        clicks: number;
        fields: number;
        keys: number;
      };
    const bump = (what: 'clicks' | 'fields' | 'keys') => {
      const now = read();
      now[what] += 1;
      sessionStorage.setItem(KEY, JSON.stringify(now));
    };
    let typing: EventTarget | null = null;
    const typedInto = (target: EventTarget | null) => {
      if (!target || target === typing) return;
      typing = target;
      bump('fields');
    };
    document.addEventListener(
      'click',
      (e) => {
        if (!e.isTrusted) return;
        typing = null;
        bump('clicks');
      },
      true,
    );
    document.addEventListener('input', (e) => e.isTrusted && typedInto(e.target), true);
    document.addEventListener(
      'change',
      (e) => {
        const input = e.target as HTMLInputElement | null;
        if (e.isTrusted && input?.type === 'file') typedInto(input);
      },
      true,
    );
    document.addEventListener(
      'keydown',
      (e) => {
        const el = e.target as HTMLElement | null;
        const inText = el?.tagName === 'INPUT' || el?.tagName === 'TEXTAREA';
        if (e.isTrusted && !inText && e.key !== 'Tab') bump('keys');
        if (e.isTrusted && inText && e.key === 'Escape') bump('keys');
      },
      true,
    );
  });
  return async () => {
    const raw = await page.evaluate(() => sessionStorage.getItem('svc-test-actions'));
    const counts = JSON.parse(raw ?? '{"clicks":0,"fields":0,"keys":0}') as Omit<
      ActionCount,
      'total'
    >;
    return { ...counts, total: counts.clicks + counts.fields + counts.keys };
  };
}

export interface ActionCount {
  clicks: number;
  fields: number;
  keys: number;
  total: number;
}
