import { rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import sharp from 'sharp';
import type { ImportJobOut } from '@svc/shared';
import { DIALECTS, scratchDb, type ScratchDb } from '../test/dialects.js';
import { startTestServer, type TestServer } from '../test/harness.js';
import { signedIn } from '../test/admins.js';
import { failInterruptedImports } from './import-job.js';
import { SettingKey } from '../settings/runtime-settings.js';
import { finished, upload, zip, type Job } from '../test/imports.js';
import { waitFor } from '../test/wait.js';

const jpeg = (red: number) =>
  sharp({ create: { width: 64, height: 48, channels: 3, background: { r: red, g: 40, b: 90 } } })
    .jpeg()
    .toBuffer();

describe.each(DIALECTS)('bulk import and export on %s', (dialect) => {
  let scratch: ScratchDb;
  let server: TestServer;
  let hold: string;
  beforeAll(async () => {
    scratch = await scratchDb(dialect);
    hold = path.join(scratch.dataDir, 'import-hold');
    server = await startTestServer({
      db: scratch.db,
      dataDir: scratch.dataDir,
      env: { SVC_IMPORT_HOLD_FILE: hold },
    });
    const org = await server.ctx.models.Organization.findOne();
    const now = new Date();
    await server.ctx.models.Space.create({
      id: crypto.randomUUID(),
      organizationId: org!.id,
      parentId: null,
      name: 'Gate A',
      createdAt: now,
      updatedAt: now,
    });
  });
  afterAll(async () => {
    await server.stop();
    await scratch.drop();
  });

  test('validity dates are whole days, and times without an offset wall clock, in the site zone', async () => {
    await server.ctx.settings.set(SettingKey.timeZone, 'Asia/Shanghai');
    try {
      const admin = await signedIn(server, 'admin');
      const csv = [
        'name,idNumber,validFrom,validUntil',
        'Zoned One,ZONE-001,2026-03-01,2026-03-31',
        'Zoned Two,ZONE-002,2026-03-01T08:00,2026-03-31T18:30:00Z',
      ].join('\n');
      const started = await upload(admin, { csv });
      expect(started.status).toBe(202);
      expect(await finished(admin, started.body.id)).toMatchObject({ succeeded: 2, failed: 0 });
      const validity = async (idNumber: string) => {
        const p = await server.ctx.models.Person.findOne({ where: { idNumber } });
        return [p!.validFrom?.toISOString(), p!.validUntil?.toISOString()];
      };
      // As the site's form: from 00:00 and until 23:59:59.999 in Shanghai, not UTC midnights.
      expect(await validity('ZONE-001')).toEqual([
        '2026-02-28T16:00:00.000Z',
        '2026-03-31T15:59:59.999Z',
      ]);
      expect(await validity('ZONE-002')).toEqual([
        '2026-03-01T00:00:00.000Z',
        '2026-03-31T18:30:00.000Z',
      ]);
    } finally {
      await server.ctx.settings.remove(SettingKey.timeZone);
    }
  });

  test('CSV with a ZIP of photos: good rows land with photos, bad rows are reported and leave nothing, a bad photo is left out', async () => {
    const admin = await signedIn(server, 'admin');
    const csv = [
      'name,idNumber,phone,spaces,enabled',
      'Tester One,IMP-001,+1 555 0100,Gate A,true',
      'Tester Two,IMP-002,,,false',
      ',IMP-003,,,',
      'Tester Four,IMP-004,,No Such Space,',
      'Tester Five,IMP-005,,,',
    ].join('\n');
    const photos = await zip({
      'IMP-001.jpg': await jpeg(10),
      'nested/imp-002.JPEG': await jpeg(20),
      'IMP-005.jpg': Buffer.from('not an image at all'),
    });
    const started = await upload(admin, { csv, photos });
    expect(started.status).toBe(202);
    const job = await finished(admin, started.body.id);
    expect(job).toMatchObject({
      state: 'succeeded',
      total: 5,
      processed: 5,
      succeeded: 3,
      failed: 2,
    });
    expect(job.errors.map((e) => e.row)).toEqual([4, 5]);
    // A photo that is no image leaves its person saved without it, as the person form does.
    expect((job as unknown as ImportJobOut).photos?.withoutPhoto).toEqual([
      expect.objectContaining({ row: 6, reasons: [{ code: 'import_photo_unreadable' }] }),
    ]);
    expect(job.errors[1]!.error).toMatch(/no space "No Such Space"/);

    // The rows to correct as a CSV, one line each with the reason: the refused ones, and the
    // one saved without its photo (issue 30: the list of what to fix is whole).
    const errorsCsv = await admin.get(`/api/imports/${started.body.id}/errors.csv`);
    expect(errorsCsv.status).toBe(200);
    expect(errorsCsv.headers.get('content-type')).toMatch(/text\/csv/);
    const lines = String(errorsCsv.body).trim().split('\r\n');
    expect(lines[0]).toBe('row,idNumber,error,code');
    expect(lines.slice(1).map((l) => l.split(',').slice(0, 2).join(','))).toEqual([
      '4,IMP-003',
      '5,IMP-004',
      '6,IMP-005',
    ]);
    expect(lines[2]).toMatch(/no space ""No Such Space""/);
    expect(lines[3]).toBe(
      '6,IMP-005,Saved without a photo: This is not a JPEG or PNG photo the service can read.,import_saved_without_photo import_photo_unreadable',
    );
    const zh = String(
      (await admin.get(`/api/imports/${started.body.id}/errors.csv?lang=zh-CN`)).body,
    )
      .trim()
      .split('\r\n');
    expect(zh[3]).toBe(
      '6,IMP-005,已保存，但没有照片：这不是服务能读取的 JPEG 或 PNG 照片。,import_saved_without_photo import_photo_unreadable',
    );

    const { Person } = server.ctx.models;
    const one = await Person.findOne({ where: { idNumber: 'IMP-001' } });
    expect(one?.photoSha256).toMatch(/^[0-9a-f]{64}$/);
    expect((await Person.findOne({ where: { idNumber: 'IMP-002' } }))?.enabled).toBe(false);
    expect(await Person.findOne({ where: { idNumber: 'IMP-004' } })).toBeNull();
    const five = await Person.findOne({ where: { idNumber: 'IMP-005' } });
    expect(five).toMatchObject({ name: 'Tester Five', photoSha256: null });

    // The same file again updates instead of duplicating.
    const again = await upload(admin, { csv: 'name,idNumber\nTester One Renamed,IMP-001' });
    expect((await finished(admin, again.body.id)).succeeded).toBe(1);
    expect(await Person.count({ where: { idNumber: 'IMP-001' } })).toBe(1);
    const renamed = await Person.findOne({ where: { idNumber: 'IMP-001' } });
    expect(renamed?.name).toBe('Tester One Renamed');
    expect(renamed?.photoSha256).toBe(one?.photoSha256);
  });

  test('an import held mid-way (SVC_IMPORT_HOLD_FILE) reports its progress, then finishes', async () => {
    const admin = await signedIn(server, 'admin');
    await writeFile(hold, '');
    try {
      const rows = Array.from({ length: 20 }, (_, i) => `Held ${i},HOLD-${i}`);
      const started = await upload(admin, { csv: ['name,idNumber', ...rows].join('\n') });
      expect(started.status).toBe(202);
      const held = await waitFor(
        async () => (await admin.get(`/api/imports/${started.body.id}`)).body as Job,
        (j) => j.total === 20,
        10_000,
      );
      expect(held).toMatchObject({ state: 'running', processed: 0 });
      const listed = (await admin.get('/api/imports')).body as { items: { id: string }[] };
      expect(listed.items[0]!.id).toBe(started.body.id);
    } finally {
      await rm(hold, { force: true });
    }
    const list = (await admin.get('/api/imports')).body as { items: Job[] };
    const id = (list.items[0] as unknown as { id: string }).id;
    expect(await finished(admin, id)).toMatchObject({ state: 'succeeded', succeeded: 20 });
    const other = await signedIn(server, 'operator');
    expect((await other.get(`/api/imports/${id}/errors.csv`)).status).toBe(200);
    expect((await admin.get(`/api/imports/${crypto.randomUUID()}/errors.csv`)).status).toBe(404);
  });

  test('a file without the required columns fails the job with a readable reason', async () => {
    const admin = await signedIn(server, 'admin');
    const started = await upload(admin, { csv: 'who,what\nx,y' });
    const job = await finished(admin, started.body.id);
    expect(job.state).toBe('failed');
    expect(job.errors[0]!.error).toMatch(/no "name" column/);
    expect((await upload(admin, {})).status).toBe(400);
  });

  test('operators cannot import; exports neutralize formulas', async () => {
    const operator = await signedIn(server, 'operator');
    expect((await upload(operator, { csv: 'name,idNumber\nA,B' })).status).toBe(403);

    const admin = await signedIn(server, 'admin');
    const created = await admin.post('/api/people', {
      name: '=HYPERLINK("http://x")',
      idNumber: 'FORMULA-1',
    });
    expect(created.status).toBe(201);
    const people = await admin.get('/api/exports/people.csv');
    expect(people.status).toBe(200);
    expect(people.headers.get('content-type')).toMatch(/text\/csv/);
    const text = String(people.body);
    expect(text).toContain(`"'=HYPERLINK(""http://x"")"`);
    expect(text).not.toMatch(/(^|,)=HYPERLINK/m);
    expect(text).toContain('IMP-001');

    const audit = await admin.get('/api/exports/audit.csv');
    // (fetch drops the byte-order mark the file starts with)
    expect(String(audit.body).split('\r\n')[0]).toBe(
      'at,actor,action,outcome,targetType,targetId,ip,summary',
    );
    expect(String(audit.body)).toContain('person.import');
    expect((await operator.get('/api/exports/audit.csv')).status).toBe(403);
  });

  test('an import cut off by a restart is marked failed with where it stopped', async () => {
    const org = await server.ctx.models.Organization.findOne();
    await server.ctx.models.ImportJob.create({
      id: crypto.randomUUID(),
      organizationId: org!.id,
      createdBy: null,
      state: 'running',
      total: 10,
      processed: 4,
      succeeded: 4,
      failed: 0,
      errors: '[]',
      createdAt: new Date(),
      finishedAt: null,
    });
    expect(await failInterruptedImports(server.ctx)).toBe(1);
    const job = await server.ctx.models.ImportJob.findOne({ where: { processed: 4, total: 10 } });
    expect(job?.state).toBe('failed');
    expect(job?.errors).toMatch(/Interrupted by a server restart/);
    expect((JSON.parse(job!.errors) as { reasons?: unknown }[])[0]!.reasons).toEqual([
      { code: 'import_interrupted' },
    ]);
  });
});
