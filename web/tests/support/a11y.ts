/** Helpers of the accessibility specs: a quick sign-in and axe at both widths. */
import { CSRF_HEADER, csrfResponse } from '@svc/shared';
import { expect, type Locator, type Page } from '@playwright/test';
import type { Account } from './admin-api';
import { expectAccessible } from './checks';

/**
 * Signs the page's browser context in through the API (the sign-in page has its own checks):
 * the session cookie lands in the context, so the next `goto` is signed in. A superadmin's
 * session may be put to work in one organization.
 */
export async function signInQuickly(
  page: Page,
  account: Account,
  organizationId?: string,
): Promise<void> {
  const csrf = csrfResponse.parse(await (await page.request.get('/api/auth/csrf')).json()).token;
  const login = await page.request.post('/api/auth/login', {
    data: { username: account.username, password: account.password },
    headers: { [CSRF_HEADER]: csrf },
  });
  expect(login.status(), 'sign-in').toBe(200);
  if (organizationId !== undefined) {
    const fresh = csrfResponse.parse(await (await page.request.get('/api/auth/csrf')).json());
    const chosen = await page.request.put('/api/auth/organization', {
      data: { organizationId },
      headers: { [CSRF_HEADER]: fresh.token },
    });
    expect(chosen.status(), 'choose the organization').toBe(200);
  }
}

/** Opens `path` and waits for what shows that the state to check has rendered. */
export async function open(page: Page, path: string, ready: Locator): Promise<void> {
  await page.goto(path);
  await expect(ready).toBeVisible();
}

/**
 * axe (4.14: no serious or critical violation) at 1280 px, then at 390 px once the layout has
 * settled (the navigation slid away), then back to 1280. `what` names the state in a failure.
 */
export async function accessibleAtBothWidths(page: Page, what: string): Promise<void> {
  await page.setViewportSize({ width: 1280, height: 800 });
  // Whatever the page was still loading has arrived (a spinner is not the state to check).
  await expect(page.locator('.mantine-Loader-root:visible')).toHaveCount(0);
  await expectAccessible(page, `${what} at 1280 px`);
  await page.setViewportSize({ width: 390, height: 844 });
  const main = page.locator('main');
  if ((await main.count()) === 1) {
    await expect.poll(() => main.evaluate((m) => m.getBoundingClientRect().left)).toBeLessThan(1);
  }
  await expectAccessible(page, `${what} at 390 px`);
  await page.setViewportSize({ width: 1280, height: 800 });
}

/** Time for `checks` states checked at both widths on a loaded machine, plus the set-up. */
export function budget(checks: number, setupMs = 30_000): number {
  return setupMs + checks * 25_000;
}
