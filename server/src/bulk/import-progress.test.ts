import { jest } from '@jest/globals';
import { rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import type { ImportJobOut } from '@svc/shared';
import { signedIn } from '../test/admins.js';
import { DIALECTS, scratchDb, type ScratchDb } from '../test/dialects.js';
import { startTestServer, type TestServer } from '../test/harness.js';
import type { TestClient } from '../test/http-client.js';
import { finished, upload } from '../test/imports.js';

type Update = (values: Record<string, unknown>, options?: unknown) => Promise<unknown>;

/**
 * An import whose own record cannot be written (the database refuses the value, or is gone for
 * a moment) ends as failed, saying why, instead of showing "running" for good (issue 34's
 * import findings). The write is made to fail by a stand-in for the job row's `update`.
 */
describe.each(DIALECTS)('an import whose progress cannot be saved on %s', (dialect) => {
  let scratch: ScratchDb;
  let server: TestServer;
  let admin: TestClient;
  let hold: string;
  let failWhen: ((values: Record<string, unknown>) => boolean) | null = null;

  beforeAll(async () => {
    scratch = await scratchDb(dialect);
    hold = path.join(scratch.dataDir, 'import-hold');
    server = await startTestServer({
      db: scratch.db,
      dataDir: scratch.dataDir,
      env: { SVC_IMPORT_HOLD_FILE: hold },
    });
    admin = await signedIn(server, 'admin');
    const proto = server.ctx.models.ImportJob.prototype as unknown as { update: Update };
    const real = proto.update;
    jest.spyOn(proto, 'update').mockImplementation(function (this: unknown, values, options) {
      if (failWhen?.(values)) return Promise.reject(new Error('Data too long for column errors'));
      return real.call(this, values, options);
    });
  });
  afterAll(async () => {
    jest.restoreAllMocks();
    await server?.stop();
    await scratch?.drop();
  });
  afterEach(() => {
    failWhen = null;
  });

  const badRows = (n: number) =>
    [
      'name,idNumber,validFrom',
      ...Array.from({ length: n }, (_, i) => `Bad ${i},BAD-${i},not a date ${'x'.repeat(50)}`),
    ].join('\n');

  test('a failed progress write stops the import as failed, with the reason', async () => {
    // Held at its first row, where the import writes its progress: that write fails.
    await writeFile(hold, '');
    failWhen = (values) => values.state === undefined && values.processed !== undefined;
    let job: ImportJobOut;
    const started = await upload(admin, { csv: badRows(3) });
    try {
      expect(started.status).toBe(202);
      job = (await finished(admin, started.body.id)) as unknown as ImportJobOut;
    } finally {
      await rm(hold, { force: true });
    }
    expect(job.state).toBe('failed');
    expect(job.finishedAt).not.toBeNull();
    expect(job.errors).toEqual([
      expect.objectContaining({ row: 0, reasons: [{ code: 'import_not_saved' }] }),
    ]);
    const audit = await server.ctx.models.Audit.findOne({
      where: { action: 'person.import', targetId: started.body.id },
    });
    expect(audit?.outcome).toBe('failure');
  });

  test('a result too large to write is replaced by the reason, and the import ends failed', async () => {
    // As a database column that holds 2,000 characters: the 100 refused rows do not fit.
    failWhen = (values) => typeof values.errors === 'string' && values.errors.length > 2_000;
    const started = await upload(admin, { csv: badRows(100) });
    expect(started.status).toBe(202);
    const job = (await finished(admin, started.body.id)) as unknown as ImportJobOut;
    expect(job.state).toBe('failed');
    expect(job.errors).toEqual([
      expect.objectContaining({ row: 0, reasons: [{ code: 'import_not_saved' }] }),
    ]);
  });

  test('what a refused row repeats from the file is kept short', async () => {
    const started = await upload(admin, {
      csv: `name,idNumber,validFrom\nLong,LONG-1,${'9'.repeat(5_000)}\n`,
    });
    const job = (await finished(admin, started.body.id)) as unknown as ImportJobOut;
    const value = job.errors[0]?.reasons?.[0]?.params?.value;
    expect(typeof value).toBe('string');
    expect((value as string).length).toBeLessThanOrEqual(200);
    expect(job.errors[0]!.error.length).toBeLessThanOrEqual(1024);
  });
});
