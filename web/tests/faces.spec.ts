import sharp from 'sharp';
import { expectAccessible, expectNothingClippedAt390 } from './support/checks';
import { expect, testWithFaces as test } from './data-fixtures';
import { PersonDetailPage, PersonFormPage, signIn } from './data-pages';
import { AuditPage } from './review-pages';
import { tag } from './support/admin-api';
import { demoPhoto, demoRegion } from './support/faces';

test('person page: the face check of the photo and a look-alike warning', async ({
  page,
  faceSite,
}) => {
  const { api, admin } = faceSite;
  const t = tag();
  // The same woman in demo photos 1 and 4 (server/src/photos/faces/test-faces.ts).
  const first = await api.createPerson({ name: `Face ${t} One`, idNumber: `F${t}-1` });
  await api.putPhoto(first.id, await demoRegion(1, 1375, 103, 406, 458));
  const second = await api.createPerson({ name: `Face ${t} Two`, idNumber: `F${t}-2` });
  await api.putPhoto(second.id, await demoRegion(4, 1205, 46, 290, 464));

  await signIn(page, admin, `/people/${second.id}`);
  const person = new PersonDetailPage(page);
  await expect(person.heading(second.name)).toBeVisible();
  const face = page.getByRole('region', { name: 'Face check' });
  await expect(face.getByText('Passed')).toBeVisible();
  await expect(face.getByTestId('face-measures')).toContainText(/face \d+ px high/);
  await expect(face.getByRole('link', { name: `${first.name}, ${first.idNumber}` })).toBeVisible();
  await expectAccessible(page);
  await expectNothingClippedAt390(page);
});

test('person form: a photo the face check refuses is kept only when an administrator says so, audited', async ({
  page,
  faceSite,
}) => {
  const { api, admin } = faceSite;
  const t = tag();
  const person = await api.createPerson({ name: `Blank ${t}`, idNumber: `B${t}` });
  const blank = await sharp({
    create: { width: 400, height: 400, channels: 3, background: { r: 128, g: 128, b: 128 } },
  })
    .jpeg()
    .toBuffer();
  await signIn(page, admin, `/people/${person.id}/edit`);
  const form = new PersonFormPage(page);
  const keep = page.getByRole('checkbox', { name: 'Use this photo anyway' });
  await expect(keep).toHaveCount(0);
  await form.photo.setInputFiles({ name: 'blank.jpg', mimeType: 'image/jpeg', buffer: blank });
  await form.save.click();
  await expect(form.error).toContainText('no face found');
  await keep.check();
  await expectAccessible(page);
  await form.save.click();

  const face = page.getByRole('region', { name: 'Face check' });
  await expect(face.getByTestId('face-accepted')).toHaveText(`Accepted by ${admin.username}`);
  await expect(face.getByTestId('face-problems')).toContainText('no face found');
  const audit = new AuditPage(page);
  await audit.goto();
  await audit.search({ Action: 'person.photo_face_accepted' });
  await expect(
    audit.table.locator('[data-testid="audit-row"][data-action="person.photo_face_accepted"]'),
  ).toHaveCount(1);
});

test.describe('in a zh-CN browser', () => {
  test.use({ locale: 'zh-CN' });

  test('a refused photo says what the check found, with its values, in Chinese', async ({
    page,
    faceSite,
  }) => {
    const { api, admin } = faceSite;
    const t = tag();
    const person = await api.createPerson({ name: `Group ${t}`, idNumber: `G${t}` });
    await page.goto(`/people/${person.id}/edit`);
    await page.getByLabel('用户名', { exact: true }).fill(admin.username);
    await page.getByLabel('密码', { exact: true }).fill(admin.password);
    await page.getByRole('button', { name: '登录', exact: true }).click();
    const form = page.getByRole('form', { name: '人员' });
    // Demo photo 1 holds three people (server/src/photos/faces/faces.test.ts says the same).
    await form.locator('input[type="file"]').setInputFiles({
      name: 'group.jpg',
      mimeType: 'image/jpeg',
      buffer: await demoPhoto(1),
    });
    await form.getByRole('button', { name: '保存' }).click();
    const error = page.getByTestId('form-error');
    await expect(error).toContainText('照片未通过人脸检测：找到 3 张人脸：请裁剪为只有一人。');
    await expect(error).not.toContainText('faces found');
    // The person's own fields were saved: the box's title says so, not "not saved".
    await expect(error.locator('.mantine-Alert-title')).toHaveText('已保存，但没有照片');
  });

  test('a photo kept despite the face check says why in Chinese, on its page and in the audit log', async ({
    page,
    faceSite,
  }) => {
    const { api, admin } = faceSite;
    const t = tag();
    const person = await api.createPerson({ name: `Kept ${t}`, idNumber: `K${t}` });
    const blank = await sharp({
      create: { width: 400, height: 400, channels: 3, background: { r: 128, g: 128, b: 128 } },
    })
      .jpeg()
      .toBuffer();
    await api.putPhoto(person.id, blank, true);

    await page.goto(`/people/${person.id}`);
    await page.getByLabel('用户名', { exact: true }).fill(admin.username);
    await page.getByLabel('密码', { exact: true }).fill(admin.password);
    await page.getByRole('button', { name: '登录', exact: true }).click();
    const problems = page.getByTestId('face-problems');
    await expect(problems).toHaveText('尽管存在问题：未找到人脸：请使用本人面部、正视镜头的照片。');

    // The audit log words the acceptance, the photo and the sign-in from their codes.
    await page.goto(`/audit?targetType=person&targetId=${person.id}`);
    const table = page.getByTestId('audit-table');
    await expect(table).toContainText('设置了照片');
    await expect(table).toContainText(
      '尽管人脸检测发现问题，仍接受了照片：未找到人脸：请使用本人面部、正视镜头的照片',
    );
    await expect(table).not.toContainText(/photo (set|accepted)/);
    await page.goto(`/audit?action=auth.login&actor=${admin.username}`);
    await expect(page.getByTestId('audit-summary').first()).toHaveText('已登录');
    await expect(page.getByTestId('audit-table')).not.toContainText(/signed in|photo|despite/i);
  });
});
