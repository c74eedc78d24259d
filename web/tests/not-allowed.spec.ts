import { expect, test } from './data-fixtures';
import { signIn } from './data-pages';
import { expectAccessible, expectNothingClippedAt390 } from './support/checks';

/**
 * Issue 30 item 4: a page that is not for the operator's role says what the page is for and
 * what they can do instead (not "can read this data" over a page with nothing to read), and
 * the text fits a 390 px screen.
 */
const pages = [
  {
    path: '/administrators',
    says: 'Administrator accounts are managed by administrators. Your role (operator) can look up people',
  },
  {
    path: '/people/new',
    says: 'Adding and editing people is for administrators. Your role (operator) can look people up',
  },
];

test('an operator reads what each closed page is for, at 1280 and 390 px', async ({
  page,
  operator,
}) => {
  await signIn(page, operator, '/');
  for (const { path, says } of pages) {
    await page.setViewportSize({ width: 1280, height: 800 });
    await page.goto(path);
    const notice = page.getByTestId('not-allowed');
    await expect(notice).toContainText(says);
    await expect(notice).not.toContainText('can read this data');
    await expect(page.getByRole('link', { name: 'Go to the dashboard' })).toBeVisible();
    await expectAccessible(page);
    await expectNothingClippedAt390(page);
    const name = path.replaceAll('/', '-');
    await page.screenshot({ path: test.info().outputPath(`not-allowed${name}-390.png`) });
  }
});
