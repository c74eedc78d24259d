import type { PersonOut } from '@svc/shared';
import { DIALECTS } from '../test/dialects.js';
import { suiteServer } from '../test/suite.js';
import type { TestClient } from '../test/http-client.js';
import { signedIn } from '../test/admins.js';
import { secondOrganization } from '../test/factories.js';

/**
 * Issue 34: Chinese names are found by their first characters, on SQLite and MySQL alike. The
 * names mix common surnames, a compound surname (欧阳), a character outside the BMP (𠮷, which
 * utf8mb4_unicode_ci weighs like every other supplementary character) and full-width letters.
 */
const NAMES = [
  '王小明',
  '王小红',
  '王大伟',
  '汪洋',
  '李娜',
  '欧阳修',
  '欧文',
  '𠮷田花子',
  '𠀋一',
  'ＡＢＣ 张',
];

describe.each(DIALECTS)('people search by a Chinese name on %s', (dialect) => {
  let admin: TestClient;

  const found = async (q: string): Promise<string[]> => {
    const reply = await admin.get(`/api/people?q=${encodeURIComponent(q)}&pageSize=200`);
    expect(reply.status).toBe(200);
    return (reply.body as { items: PersonOut[] }).items.map((p) => p.name).sort();
  };

  const suite = suiteServer(dialect);
  beforeAll(async () => {
    const orgId = await secondOrganization(suite.server, 'CJK search org');
    admin = await signedIn(suite.server, 'admin', undefined, orgId);
    let n = 0;
    for (const name of NAMES) {
      const reply = await admin.post('/api/people', { name, idNumber: `CJK-${++n}` });
      expect(reply.status).toBe(201);
    }
  });

  test('the first character finds every name that starts with it, and only those', async () => {
    expect(await found('王')).toEqual(['王大伟', '王小明', '王小红'].sort());
    expect(await found('汪')).toEqual(['汪洋']);
    expect(await found('李')).toEqual(['李娜']);
  });

  test('more characters narrow it down; the whole name finds the one person', async () => {
    expect(await found('王小')).toEqual(['王小明', '王小红'].sort());
    expect(await found('王小明')).toEqual(['王小明']);
    expect(await found('欧阳')).toEqual(['欧阳修']);
    expect(await found('欧')).toEqual(['欧文', '欧阳修'].sort());
  });

  test('a character in the middle of a name is not a prefix', async () => {
    expect(await found('小')).toEqual([]);
    expect(await found('明')).toEqual([]);
  });

  test('characters outside the BMP match exactly, not every supplementary character', async () => {
    expect(await found('𠮷')).toEqual(['𠮷田花子']);
    expect(await found('𠮷田')).toEqual(['𠮷田花子']);
    expect(await found('𠀋')).toEqual(['𠀋一']);
  });

  test('full-width letters are found by their ordinary form, and the other way round', async () => {
    expect(await found('abc')).toEqual(['ＡＢＣ 张']);
    expect(await found('ＡＢ')).toEqual(['ＡＢＣ 张']);
    expect(await found('abc 张')).toEqual(['ＡＢＣ 张']);
  });
});
