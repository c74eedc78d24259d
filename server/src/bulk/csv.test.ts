import { csvCell, csvRow, neutralize } from './csv.js';

describe('CSV cells', () => {
  test.each(['=HYPERLINK("http://x")', '+1+2', '-2+3', '@SUM(A1)', '\tcmd', '\rcmd'])(
    '%j is neutralized',
    (v) => expect(neutralize(v).startsWith("'")).toBe(true),
  );
  test('ordinary values are left alone; quotes, commas and newlines are quoted', () => {
    expect(neutralize('Anna 2-3')).toBe('Anna 2-3');
    expect(csvCell('a,b')).toBe('"a,b"');
    expect(csvCell('say "hi"')).toBe('"say ""hi"""');
    expect(csvCell(null)).toBe('');
    expect(csvRow(['=1+1', 'x\ny', 3])).toBe(`'=1+1,"x\ny",3\r\n`);
  });
});
