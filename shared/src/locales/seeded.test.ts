import { SEEDED_ADMIN_DISPLAY_NAME, SEEDED_ORGANIZATION_NAME } from '../constants.js';
import { loadSharedTexts, namesOrganization } from './index.js';

/** Issue 34: the seed's names are said in the reader's language while they are the seed's. */
describe("the seed's own names", () => {
  test('each language words them; English is the stored name itself', async () => {
    expect((await loadSharedTexts('en')).seeded).toEqual({
      organization: SEEDED_ORGANIZATION_NAME,
      administrator: SEEDED_ADMIN_DISPLAY_NAME,
    });
    expect((await loadSharedTexts('zh-CN')).seeded).toEqual({
      organization: '默认组织',
      administrator: '管理员',
    });
  });

  test('a typed name finds the seeded organization in either language, a renamed one only as named', async () => {
    expect(await namesOrganization(SEEDED_ORGANIZATION_NAME, '默认组织')).toBe(true);
    expect(await namesOrganization(SEEDED_ORGANIZATION_NAME, ' Default organization ')).toBe(true);
    expect(await namesOrganization('Acme Plant', 'Acme Plant')).toBe(true);
    expect(await namesOrganization('Acme Plant', '默认组织')).toBe(false);
    expect(await namesOrganization('默认组织', 'Default organization')).toBe(false);
  });
});
