import { csvCell, csvRow, neutralize } from './csv.js';
import { toInput } from './rows.js';
import { ImportRefusal } from './sources.js';

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

describe('a file the site exported, imported back', () => {
  const rules = {
    spaces: { byName: new Map(), byPath: new Map(), pathOf: new Map() },
    zone: 'UTC',
    organization: 'Head office',
  };
  test('loses the quote the export put before = + - @, and nothing else', () => {
    const values = {
      name: neutralize('+cmd'),
      idNumber: 'A-001',
      phone: neutralize('+86 138 0000 0000'),
      notes: "'quoted on purpose",
    };
    const person = toInput({ line: 2, values }, rules);
    expect([person.name, person.phone, person.notes]).toEqual([
      '+cmd',
      '+86 138 0000 0000',
      "'quoted on purpose",
    ]);
  });
});

describe('an organization column, as the export across all organizations writes', () => {
  const rules = {
    spaces: { byName: new Map(), byPath: new Map(), pathOf: new Map() },
    zone: 'UTC',
    organization: 'Head office',
  };
  const row = (organization: string) => ({
    line: 3,
    values: { organization, name: 'Ada', idNumber: 'A-1' },
  });

  test('naming the organization imported into (or empty) the row is read', () => {
    expect(toInput(row('Head office'), rules).idNumber).toBe('A-1');
    expect(toInput(row(' '), rules).idNumber).toBe('A-1');
  });

  test('naming another organization the row is refused, saying where it belongs', () => {
    let refused: unknown;
    try {
      toInput(row('Branch, "East"'), rules);
    } catch (err) {
      refused = err;
    }
    expect(refused).toBeInstanceOf(ImportRefusal);
    expect((refused as ImportRefusal).reasons).toEqual([
      {
        code: 'import_other_organization',
        params: { field: 'organization', organization: 'Branch, "East"', importing: 'Head office' },
      },
    ]);
  });
});
