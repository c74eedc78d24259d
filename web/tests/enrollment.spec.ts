import { mkdtempSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { startTerminal, type TerminalHandle } from '@svc/sim';
import {
  configureResponse,
  discoveryNode,
  enrollmentAnswer,
  enrollmentChangeOut,
  personOut,
} from '@svc/shared';
import type { APIRequestContext, Page } from '@playwright/test';
import { z } from 'zod';
import { expect, test as base, withStack, type Stack } from './fixtures';
import { signIn } from './data-pages';
import { AuditPage, ChangePage, ChangesPage } from './review-pages';
import { AdminApi, tag, type Account } from './support/admin-api';
import { expectAccessible, expectNothingClippedAt390 } from './support/checks';
import { freeUdpPort } from './support/udp';

interface ReviewFixtures {
  review: {
    stack: Stack;
    api: AdminApi;
    admin: Account;
    operator: Account;
    terminal: TerminalHandle;
  };
}

/**
 * A stack of its own with LAN discovery on a free UDP port and a simulated enrollment terminal
 * given the central address (and so its token) through `POST /api/discovery/configure`: from
 * then on the terminal enrolls with its own token, as a real one does.
 */
const test = base.extend<ReviewFixtures>({
  review: [
    async ({ nginxBin, runDir, playwright }, use) => {
      const discoveryPort = await freeUdpPort();
      await withStack(
        nginxBin,
        mkdtempSync(path.join(runDir, 'review-')),
        async (stack) => {
          const { api, account } = await AdminApi.signIn(playwright, stack.serverURL, {
            username: stack.adminUsername,
            password: stack.adminPassword,
          });
          const operator = await api.createOperator(playwright);
          const terminal = await startTerminal({
            id: `ENR-${tag().toUpperCase()}`,
            kind: 'enrollment',
            bindAddress: '127.0.0.1',
            httpPort: 0,
            discoveryPort,
            broadcastAddresses: ['127.255.255.255'],
            announceIntervalMs: 500,
            checkinIntervalMs: 0,
          });
          try {
            await expect
              .poll(async () => {
                const nodes = z
                  .array(discoveryNode)
                  .parse(await (await api.request.get('/api/discovery/nodes')).json());
                return nodes.some((node) => node.id === terminal.id);
              })
              .toBe(true);
            const configured = configureResponse.parse(
              await api.post('/api/discovery/configure', {
                ids: [terminal.id],
                centralUrl: stack.serverURL,
              }),
            );
            expect(configured.results[0]?.ok).toBe(true);
            await use({ stack, api, admin: account, operator, terminal });
          } finally {
            await terminal.stop();
            await api.dispose();
          }
        },
        { SVC_DISCOVERY_WORKER: '1', DISCOVERY_PORT: String(discoveryPort) },
      );
    },
    { timeout: 90_000 },
  ],
  site: async ({ review }, use) => {
    await use(review.stack);
  },
});

/** A JPEG of one flat colour, drawn by the browser (before it opens the site). */
async function flatJpeg(page: Page, colour: string): Promise<string> {
  await page.setContent(`<body style="margin:0;background:${colour}"></body>`);
  const jpeg = await page.screenshot({
    type: 'jpeg',
    quality: 80,
    clip: { x: 0, y: 0, width: 120, height: 160 },
  });
  return jpeg.toString('base64');
}

/** Enrolls a new person, then the same ID number again: the second is held for review. */
async function heldChange(
  terminal: TerminalHandle,
  first: { name: string; photo: string },
  again: { name: string; photo: string },
): Promise<{ personId: string; changeId: string }> {
  const idNumber = `REV-${tag()}`;
  const created = await terminal.enroll({ ...first, idNumber });
  expect(created?.status).toBe(201);
  const personId = enrollmentAnswer.parse(created?.body).id;
  const held = await terminal.enroll({ ...again, idNumber });
  expect(held?.status).toBe(200);
  const answer = enrollmentAnswer.parse(held?.body);
  expect(answer).toMatchObject({ id: personId, pending: true });
  return { personId, changeId: answer.changeId! };
}

async function bytes(request: APIRequestContext, url: string): Promise<Buffer> {
  const response = await request.get(url);
  expect(response.status()).toBe(200);
  return response.body();
}

test('pending changes: one approved (its photo becomes the person’s), one rejected; the audit log finds both', async ({
  page,
  review,
}) => {
  test.setTimeout(90_000);
  const { terminal, api } = review;
  const t = tag();
  const alice = await heldChange(
    terminal,
    { name: `Alice ${t}`, photo: await flatJpeg(page, '#3366cc') },
    { name: `Alice ${t}`, photo: await flatJpeg(page, '#cc6633') },
  );
  const bob = await heldChange(
    terminal,
    { name: `Bob ${t}`, photo: await flatJpeg(page, '#339966') },
    { name: `Robert Impostor ${t}`, photo: await flatJpeg(page, '#993366') },
  );
  const before = personOut.parse(
    await (await api.request.get(`/api/people/${bob.personId}`)).json(),
  );

  // The person page says a change waits, and leads to it.
  await signIn(page, review.admin, `/people/${alice.personId}`);
  await expect(page.getByTestId('pending-change')).toContainText(terminal.id);
  await page.getByRole('link', { name: 'Review the change' }).click();
  const change = new ChangePage(page);
  await expect(change.heading).toHaveText(`Change for Alice ${t}`);
  await expect(change.state).toHaveText('Pending review');
  await expect(change.name).toHaveText(`Alice ${t} (unchanged)`);
  for (const which of ['before', 'sent'] as const) {
    await expect(change.photo(which)).toBeVisible();
    await expect
      .poll(() => change.photo(which).evaluate((img: HTMLImageElement) => img.naturalWidth))
      .toBeGreaterThan(0);
  }
  await expectAccessible(page);

  await change.decide('Approve');
  await expect(change.state).toHaveText('Approved');
  await expect(page.getByTestId('change-decided')).toContainText(`by ${review.admin.username}`);
  await expect(change.approve).toHaveCount(0);
  await expect(change.reject).toHaveCount(0);

  // The approved photo is now the person's photo.
  const approved = enrollmentChangeOut.parse(
    await (await api.request.get(`/api/enrollment/changes/${alice.changeId}`)).json(),
  );
  const person = personOut.parse(
    await (await api.request.get(`/api/people/${alice.personId}`)).json(),
  );
  expect(person.photoSha256).toBe(approved.newPhotoSha256);
  expect(await bytes(api.request, `/api/people/${alice.personId}/photo`)).toEqual(
    await bytes(api.request, `/api/enrollment/changes/${alice.changeId}/photo?which=new`),
  );
  await page.getByRole('link', { name: `Alice ${t}` }).click();
  await expect(page.getByRole('img', { name: `Photo of Alice ${t}` })).toHaveAttribute(
    'src',
    new RegExp(`v=${approved.newPhotoSha256.slice(0, 16)}`),
  );
  await expect(page.getByTestId('pending-change')).toHaveCount(0);

  // The list shows what still waits; Bob's change is rejected from there.
  const list = new ChangesPage(page);
  await page
    .getByRole('navigation', { name: 'Sections' })
    .getByRole('link', { name: 'Pending changes' })
    .click();
  await expect(list.heading).toBeVisible();
  await expect(list.row(bob.changeId)).toContainText('name and photo');
  await expect(list.row(alice.changeId)).toHaveCount(0);
  await expectAccessible(page);
  await list.row(bob.changeId).getByRole('link').first().click();
  await expect(change.name).toHaveText(`Bob ${t} → Robert Impostor ${t}`);
  // A double click on the dialog's button decides once: no second request, no "already decided".
  const decisions: string[] = [];
  page.on('request', (r) => {
    if (r.method() === 'POST' && r.url().endsWith(`/changes/${bob.changeId}/reject`)) {
      decisions.push(r.url());
    }
  });
  await change.reject.click();
  // Two clicks before the page draws again, as a double click lands on a busy machine (the
  // full suite's second worker made dblclick() send two: the button was not busy yet).
  await change.dialog.getByRole('button', { name: 'Reject change' }).evaluate((button) => {
    const b = button as unknown as { click(): void };
    b.click();
    b.click();
  });
  await expect(change.dialog).toBeHidden();
  await expect(change.state).toHaveText('Rejected');
  expect(decisions).toHaveLength(1);
  const after = personOut.parse(
    await (await api.request.get(`/api/people/${bob.personId}`)).json(),
  );
  expect([after.name, after.photoSha256, after.version]).toEqual([
    before.name,
    before.photoSha256,
    before.version,
  ]);

  // Decided changes stay listed under their state.
  await page.getByRole('link', { name: '← Pending changes' }).click();
  await expect(list.row(bob.changeId)).toHaveCount(0);
  await list.show('Rejected');
  await expect(page).toHaveURL(/state=rejected/);
  await expect(list.row(bob.changeId)).toContainText('Rejected');
  await expect(list.row(alice.changeId)).toHaveCount(0);

  // The audit log finds both decisions, by action and by object.
  const audit = new AuditPage(page);
  await audit.goto();
  await audit.search({ Action: 'enrollment.change_', 'Object type': 'person' });
  await expect(audit.rows.filter({ hasText: 'enrollment.change_approve' })).toContainText(
    alice.personId,
  );
  await expect(audit.rows.filter({ hasText: 'enrollment.change_reject' })).toContainText(
    bob.personId,
  );
  await expect(page).toHaveURL(/action=enrollment.change_/);
  await audit.search({ Action: '', 'Object ID': bob.personId, Actor: review.admin.username });
  await expect(audit.rows).toHaveCount(1);
  await expect(audit.rows.first()).toHaveAttribute('data-action', 'enrollment.change_reject');
  await expectAccessible(page);

  // Export CSV: the same search, downloaded.
  const [download] = await Promise.all([page.waitForEvent('download'), audit.exportCsv.click()]);
  const csv = readFileSync(await download.path(), 'utf8').split('\r\n');
  expect(csv[0]).toContain('at,actor,action,outcome,targetType,targetId,ip,summary');
  expect(csv.filter((line) => line.includes('enrollment.change_'))).toEqual([
    expect.stringContaining(`enrollment.change_reject,success,person,${bob.personId}`),
  ]);
  await expectNothingClippedAt390(page);
});

test('pending changes: an operator sees the change but no approve or reject, and no audit log', async ({
  page,
  review,
}) => {
  const t = tag();
  const held = await heldChange(
    review.terminal,
    { name: `Carol ${t}`, photo: await flatJpeg(page, '#336699') },
    { name: `Carol ${t}`, photo: await flatJpeg(page, '#996633') },
  );
  await signIn(page, review.operator, '/enrollment/changes');
  const list = new ChangesPage(page);
  await expect(list.row(held.changeId)).toContainText('photo');
  await expectNothingClippedAt390(page);
  await list.row(held.changeId).getByRole('link').first().click();
  const change = new ChangePage(page);
  await expect(change.state).toHaveText('Pending review');
  await expect(change.photo('sent')).toBeVisible();
  await expect(change.approve).toHaveCount(0);
  await expect(change.reject).toHaveCount(0);
  await expectAccessible(page);
  await expectNothingClippedAt390(page);
  await expect(
    page.getByRole('navigation', { name: 'Sections' }).getByRole('link', { name: 'Audit log' }),
  ).toHaveCount(0);
  await page.goto('/audit');
  await expect(page.getByTestId('not-allowed')).toHaveText('The audit log is for administrators.');
});
