import { readFile } from 'node:fs/promises';
import path from 'node:path';
import type { PersonOut, SpaceOut } from '@svc/shared';
import { DIALECTS, scratchDb, type ScratchDb } from '../test/dialects.js';
import { startTestServer, type TestServer } from '../test/harness.js';
import { signedIn } from '../test/admins.js';
import { secondOrganization } from '../test/factories.js';
import { finished, upload } from '../test/imports.js';

/** The site's Chinese CSV template, as an administrator downloads it (issue 34). */
const TEMPLATE = path.resolve(import.meta.dirname, '../../../web/public/people-template.zh-CN.csv');

describe.each(DIALECTS)('the Chinese import template on %s', (dialect) => {
  let scratch: ScratchDb;
  let server: TestServer;
  beforeAll(async () => {
    scratch = await scratchDb(dialect);
    server = await startTestServer({ db: scratch.db, dataDir: scratch.dataDir });
  });
  afterAll(async () => {
    await server.stop();
    await scratch.drop();
  });

  test('the template as downloaded (BOM, Chinese header, 是, space names) imports its row', async () => {
    const orgId = await secondOrganization(server, 'Template org');
    const admin = await signedIn(server, 'admin', undefined, orgId);
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
    const admin = await signedIn(server, 'admin');
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
});
