import { CSRF_HEADER, errorBody, heartbeatResponse } from '@svc/shared';
import { expectAccessible } from './support/checks';
import { expect, testWithOwnServer as test } from './fixtures';
import { ChangePasswordPage, HomePage, LoginPage } from './pages';
import { generatePassword } from './support/stack';

test('first sign-in forces a password change, then home, sign-out, and the old password is gone', async ({
  page,
  request,
  site,
}) => {
  // Five axe passes and three refusals: past 30 s when the machine is busy.
  test.slow();
  const login = new LoginPage(page);
  const change = new ChangePasswordPage(page);
  const home = new HomePage(page);

  await login.goto();
  await expect(page.getByRole('main')).toBeVisible();
  await expectAccessible(page);
  await login.signIn(site.adminUsername, site.adminPassword);
  await expect(change.heading).toBeVisible();
  await expectAccessible(page);
  await expect(home.heading).toHaveCount(0);

  // Too short: the server refuses it and its own words are shown.
  const refused = page.waitForResponse(
    (response) =>
      response.url().endsWith('/api/auth/password') && response.request().method() === 'POST',
  );
  await change.change(site.adminPassword, 'Short1!');
  const refusal = await refused;
  expect(refusal.status()).toBe(400);
  const { error } = errorBody.parse(await refusal.json());
  expect(error.code).toBe('weak_password');
  await expect(change.error).toContainText(error.message);
  await expect(change.heading).toBeVisible();

  // Far too long: every field the server names gets its message beside it.
  const tooLong = page.waitForResponse(
    (response) =>
      response.url().endsWith('/api/auth/password') && response.request().method() === 'POST',
  );
  await change.change(site.adminPassword, 'L'.repeat(5000));
  const long = errorBody.parse(await (await tooLong).json()).error;
  expect(Object.keys(long.fields ?? {})).toEqual(['newPassword']);
  await expect(change.newPassword).toHaveAttribute('data-invalid', 'true');
  await expect.poll(() => change.fieldError(change.newPassword)).toBe(long.fields!.newPassword);
  await expect(change.error).toBeVisible();

  // Two different new passwords never reach the server.
  const newPassword = generatePassword(24);
  await change.change(site.adminPassword, newPassword, `${newPassword}x`);
  await expect(page.getByText('The two new passwords are not the same.')).toBeVisible();

  await change.change(site.adminPassword, newPassword);
  await expect(home.heading).toBeVisible();
  await expect(home.username).toHaveText(site.adminUsername);
  await expect(home.role).toHaveText(/administrator|operator/i);
  await expect(home.statusState).toHaveText(/Running/);
  await expectAccessible(page);

  // Service status matches what the server reports.
  const heartbeat = heartbeatResponse.parse(await (await request.get('/api/heartbeat')).json());
  await expect(home.statusState).toHaveText(/Running/);
  await expect(home.statusVersion).toHaveText(heartbeat.version);
  await expect(home.statusDatabase).toHaveText(/Connected/);
  await expect(home.statusUptime).toHaveText(/^\d+ (s|min|h|d)\b/);
  await expect(home.statusWarnings).toContainText('Warnings');
  // Each warning, worded by the site from its code (the server's English is for API users).
  await expect(home.statusWarnings.getByRole('listitem')).toHaveCount(heartbeat.warnings.length);

  // A reload keeps the session.
  await page.reload();
  await expect(home.username).toHaveText(site.adminUsername);

  await home.signOut();
  await expect(login.heading).toBeVisible();
  await page.reload();
  await expect(login.heading).toBeVisible();

  await login.signIn(site.adminUsername, site.adminPassword);
  await expect(login.error).toContainText('Wrong username or password');
  await expect(login.heading).toBeVisible();

  await login.signIn(site.adminUsername, newPassword);
  await expect(home.username).toHaveText(site.adminUsername);
});

test('a wrong password shows a plain error and stays on the login page', async ({ page, site }) => {
  const login = new LoginPage(page);
  await login.goto('/people');

  const csrf = page.waitForResponse((response) => response.url().endsWith('/api/auth/csrf'));
  const attempt = page.waitForRequest(
    (request) => request.url().endsWith('/api/auth/login') && request.method() === 'POST',
  );
  await login.signIn(site.adminUsername, `wrong-${generatePassword(16)}`);
  const { token } = (await (await csrf).json()) as { token: string };
  expect((await attempt).headers()[CSRF_HEADER]).toBe(token);

  await expect(login.error).toHaveText(/Wrong username or password/);
  await expect(login.heading).toBeVisible();
  await expect(login.username).toHaveValue(site.adminUsername);
  await expect(login.password).toHaveValue('');
  await expect(new HomePage(page).heading).toHaveCount(0);
});

test('repeated failures are rate limited and the wait is shown', async ({ page, site }) => {
  const login = new LoginPage(page);
  await login.goto();
  const wrong = `wrong-${generatePassword(16)}`;
  let limited: { retryAfter: string | undefined } | null = null;
  // The server's limits are its own business; keep failing until it says 429 (well before 60).
  for (let attempt = 0; attempt < 60 && limited === null; attempt++) {
    const answer = page.waitForResponse(
      (response) =>
        response.url().endsWith('/api/auth/login') && response.request().method() === 'POST',
    );
    await login.signIn(site.adminUsername, wrong);
    const response = await answer;
    if (response.status() === 429) limited = { retryAfter: response.headers()['retry-after'] };
    else expect(response.status()).toBe(401);
  }
  expect(limited, 'the server never answered 429').not.toBeNull();
  expect(limited?.retryAfter).toMatch(/^\d+$/);
  await expect(login.error).toHaveText(
    /Too many attempts\. Try again in \d+ (seconds?|minutes?)\./,
  );
  await expect(login.heading).toBeVisible();
});
