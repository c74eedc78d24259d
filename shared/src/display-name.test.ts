import { displayName, displayNameProblem } from './display-name.js';
import { issuesToMessages } from './messages.js';

describe('the display-name rule', () => {
  const codeOf = (name: string) => {
    const result = displayName.safeParse(name);
    return result.success ? 'ok' : issuesToMessages(result.error.issues, name)['(body)']?.code;
  };

  test('control, bidi and invisible-only names are refused, each by its code', () => {
    for (const name of ['a\u0000b', 'a\u0007', 'a\tb', 'a\nb', 'a\u007Fb', 'a\u009Bb'])
      expect([name, codeOf(name)]).toEqual([name, 'control_characters']);
    for (const c of ['\u202A', '\u202B', '\u202C', '\u202D', '\u202E', '\u2066', '\u2069'])
      expect(codeOf(`x${c}y`)).toBe('bidi_characters');
    for (const name of ['\u200B', '\u200B\u200C\u200D', ' \u2060 ', '\uFEFF\u200B'])
      expect(codeOf(name)).toBe('invisible_name');
    expect(codeOf('   ')).toBe('required');
    expect(codeOf('')).toBe('required');
  });

  test('ordinary names pass, right-to-left scripts and joiners inside a name included', () => {
    for (const name of ['Zhang San', '张三', 'علي حسن', 'שרה', 'क्\u200Dष', 'Anne\u00A0Marie'])
      expect([name, codeOf(name)]).toEqual([name, 'ok']);
    expect(displayName.parse('  Trimmed\t')).toBe('Trimmed');
    expect(displayNameProblem('fine')).toBeUndefined();
  });
});
