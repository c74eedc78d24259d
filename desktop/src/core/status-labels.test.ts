import { readFileSync } from 'node:fs';

/**
 * A status label sits after a mark (✔ ✘ –) that already says how the step went; in Chinese a
 * label with 已 ("already …") after ✘ or – says the opposite of the mark ("✘ 已同步").
 */
const zh = JSON.parse(
  readFileSync(new URL('../locales/zh-CN.json', import.meta.url), 'utf8'),
) as Record<string, Record<string, unknown>>;
const at = (key: string): string => {
  const value = key.split('.').reduce<unknown>((o, k) => (o as Record<string, unknown>)[k], zh);
  if (typeof value !== 'string') throw new Error(`no text at ${key}`);
  return value;
};

describe('zh-CN status labels', () => {
  it('name the step, never claim it happened: a mark says how it went', () => {
    const labels = [
      // The push's badges (✔ / ✘ / –).
      'proof.step.saved',
      'proof.step.readBack',
      'proof.step.checkedIn',
      // Evidence labels, shown after ✔ or ✘.
      'evidence.testPersonCreated',
      'evidence.synchronized',
      'evidence.photoStored',
      'evidence.erased',
    ];
    for (const key of labels)
      expect([key, at(key)]).toEqual([key, expect.not.stringMatching(/已/)]);
    expect(at('proof.step.readBack')).toBe('回读');
    expect(at('proof.step.checkedIn')).toBe('签到');
  });

  it('say "not tried" for a step never attempted', () => {
    expect(at('push.notTried')).toBe('未尝试');
    expect(at('proof.notTried')).toBe('{{label}}：未尝试');
  });
});
