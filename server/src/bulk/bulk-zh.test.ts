import { readFile } from 'node:fs/promises';
import path from 'node:path';
import type { ImportCheckOut, ImportJobOut, PersonOut, SpaceOut } from '@svc/shared';
import { DIALECTS } from '../test/dialects.js';
import { suiteServer } from '../test/suite.js';
import { signedIn } from '../test/admins.js';
import { secondOrganization } from '../test/factories.js';
import { finished, upload } from '../test/imports.js';

/** The site's Chinese CSV template, as an administrator downloads it (issue 34). */
const TEMPLATE = path.resolve(import.meta.dirname, '../../../web/public/people-template.zh-CN.csv');

describe.each(DIALECTS)('the Chinese import template on %s', (dialect) => {
  const suite = suiteServer(dialect);

  test('the template as downloaded (BOM, Chinese header, 是, space names) imports its row', async () => {
    const orgId = await secondOrganization(suite.server, 'Template org');
    const admin = await signedIn(suite.server, 'admin', undefined, orgId);
    const main = (await admin.post('/api/spaces', { name: '主楼' })).body as SpaceOut;
    const floor = (await admin.post('/api/spaces', { name: '一层', parentId: main.id }))
      .body as SpaceOut;
    const csv = await readFile(TEMPLATE);

    const check = await upload(admin, { csv }, '/api/imports/people/check');
    expect(check.status).toBe(200);
    expect(check.body).toMatchObject({ total: 1, failed: 0 });

    const started = await upload(admin, { csv });
    expect(started.status).toBe(202);
    expect(await finished(admin, started.body.id)).toMatchObject({
      state: 'succeeded',
      succeeded: 1,
      failed: 0,
    });
    const found = (await admin.get(`/api/people?q=${encodeURIComponent('示例')}`)).body as {
      items: PersonOut[];
    };
    expect(found.items).toHaveLength(1);
    expect(found.items[0]).toMatchObject({
      name: '示例人员',
      idNumber: 'AB-1001',
      enabled: true,
      notes: '请替换此行',
    });
    expect([...found.items[0]!.spaceIds].sort()).toEqual([main.id, floor.id].sort());
  });

  test('English and Chinese column names mix; 否 disables; a missing 姓名 column is named', async () => {
    const admin = await signedIn(suite.server, 'admin');
    const mixed = await upload(admin, { csv: '姓名,idNumber,启用\n李娜,ZH-2,否' });
    expect(await finished(admin, mixed.body.id)).toMatchObject({ state: 'succeeded' });
    const li = (await admin.get(`/api/people?q=${encodeURIComponent('李娜')}`)).body as {
      items: PersonOut[];
    };
    expect(li.items[0]).toMatchObject({ idNumber: 'ZH-2', enabled: false });

    const missing = await upload(admin, { csv: '证件号码\nZH-3' });
    const job = await finished(admin, missing.body.id);
    expect(job.state).toBe('failed');
    expect(job.errors[0]!.error).toMatch(/no "name" column/);
  });

  test('a CSV saved by Excel on a Chinese Windows (GB18030/GBK, no BOM) is read as such', async () => {
    const admin = await signedIn(suite.server, 'admin');
    // '姓名,证件号码,有效期至\n张伟,GBK-001,2026-12-31\n李娜,GBK-002,\n' as GBK encodes it.
    const csv = Buffer.from(
      'd0d5c3fb2cd6a4bcfebac5c2eb2cd3d0d0a7c6dad6c10ad5c5ceb02c47424b2d3030312c323032362d31322d33310ac0eec4c82c47424b2d3030322c0a',
      'hex',
    );
    expect(() => new TextDecoder('utf-8', { fatal: true }).decode(csv)).toThrow();

    const check = await upload(admin, { csv }, '/api/imports/people/check');
    expect([check.status, check.body]).toEqual([
      200,
      { total: 2, failed: 0, errors: [], photos: null },
    ]);
    const started = await upload(admin, { csv });
    expect(await finished(admin, started.body.id)).toMatchObject({
      state: 'succeeded',
      succeeded: 2,
    });
    const found = (await admin.get('/api/people?q=GBK-00')).body as { items: PersonOut[] };
    expect(found.items.map((p) => [p.idNumber, p.name]).sort()).toEqual([
      ['GBK-001', '张伟'],
      ['GBK-002', '李娜'],
    ]);
  });

  test('a file without a name column: the check says so by code, and Start would too', async () => {
    const admin = await signedIn(suite.server, 'admin');
    const check = await upload(admin, { csv: '证件号码\nZH-4' }, '/api/imports/people/check');
    expect(check.status).toBe(400);
    expect(check.body.error).toMatchObject({
      fields: { csv: 'The CSV header has no "name" column.' },
      fieldCodes: { csv: { code: 'import_no_column', params: { field: 'name' } } },
    });
    const job = (await finished(
      admin,
      (await upload(admin, { csv: '证件号码\nZH-4' })).body.id,
    )) as unknown as ImportJobOut;
    expect(job.errors[0]).toMatchObject({
      row: 0,
      reasons: [{ code: 'import_no_column', params: { field: 'name' } }],
    });
  });

  test('row reasons by code and values; the errors CSV in the downloader’s language', async () => {
    const admin = await signedIn(suite.server, 'admin');
    const csv = [
      '姓名,证件号码,有效期自,启用,空间',
      ',RSN-001,,,',
      '王芳,RSN-002,2026-02-30,,',
      '赵磊,RSN-003,,也许,',
      '孙丽,RSN-004,,,无此空间',
    ].join('\n');
    const check = (await upload(admin, { csv }, '/api/imports/people/check'))
      .body as unknown as ImportCheckOut;
    expect(check.errors.map((e) => [e.row, e.reasons])).toEqual([
      [2, [{ code: 'import_field', params: { field: 'name', problem: 'required' } }]],
      [3, [{ code: 'import_not_real_date', params: { field: 'validFrom', value: '2026-02-30' } }]],
      [4, [{ code: 'import_yes_no', params: { field: 'enabled', value: '也许' } }]],
      [5, [{ code: 'import_no_space', params: { field: 'spaces', space: '无此空间' } }]],
    ]);
    expect(check.errors[1]!.error).toBe('validFrom: "2026-02-30" is not a real date.');

    const started = await upload(admin, { csv });
    await finished(admin, started.body.id);
    const url = `/api/imports/${started.body.id}/errors.csv`;
    const zh = String((await admin.get(`${url}?lang=zh-CN`)).body)
      .trim()
      .split('\r\n');
    expect(zh).toEqual([
      '行,证件号码,原因,代码',
      '2,RSN-001,姓名：必填。,import_field',
      '3,RSN-002,有效期自：“2026-02-30”不是真实存在的日期。,import_not_real_date',
      '4,RSN-003,启用：请使用“是”或“否”（也可用 true 或 false；实际为“也许”）。,import_yes_no',
      '5,RSN-004,空间：不存在名为“无此空间”的空间；请写空间名称，或按网站显示的路径书写（例如 HQ Building › Floor 1）；多个空间用 ; 分隔。,import_no_space',
    ]);
    // Without `lang`: the browser's language, as a plain link downloads it.
    const en = await admin.get(url, { 'accept-language': 'en-GB,en;q=0.8' });
    expect(String(en.body).trim().split('\r\n')[2]).toBe(
      '3,RSN-002,"validFrom: ""2026-02-30"" is not a real date.",import_not_real_date',
    );
    const byBrowser = await admin.get(url, { 'accept-language': 'zh-CN,zh;q=0.9' });
    expect(String(byBrowser.body)).toContain('姓名：必填。');
    expect(await suite.server.ctx.models.Person.count({ where: { idNumber: 'RSN-002' } })).toBe(0);
  });
});
