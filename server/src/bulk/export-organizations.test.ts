import type { ImportCheckOut } from '@svc/shared';
import { DIALECTS } from '../test/dialects.js';
import { factories } from '../test/factories.js';
import { myOrganization, signedIn } from '../test/admins.js';
import type { TestClient } from '../test/http-client.js';
import { upload } from '../test/imports.js';
import { suiteServer } from '../test/suite.js';

/** The people export's lines (fetch drops the byte-order mark the file starts with). */
const exported = async (client: TestClient) =>
  String((await client.get('/api/exports/people.csv')).body)
    .trim()
    .split('\r\n');

/**
 * A superadmin working in "All organizations" exports everyone's people: each row says whose
 * they are, by the organization's name; read back, only the rows of the organization imported
 * into are taken (another's would become second people there).
 */
describe.each(DIALECTS)('the people export across organizations on %s', (dialect) => {
  const suite = suiteServer(dialect);
  let superadmin: TestClient;
  let admin: TestClient;
  const choose = (organizationId: string | null) =>
    superadmin.request('PUT', '/api/auth/organization', { body: { organizationId }, csrf: true });

  beforeAll(async () => {
    superadmin = await signedIn(suite.server, 'superadmin');
    admin = await signedIn(suite.server, 'admin');
    const make = factories(suite.server);
    const home = await suite.server.ctx.models.Organization.findByPk(await myOrganization(admin));
    await home!.update({ name: 'Head office' });
    const branch = await make.buildOrganization({ name: 'Branch, "East"' });
    await make.buildPerson({ organizationId: home!.id, name: 'Home One', idNumber: 'ORG-H1' });
    await make.buildPerson({ organizationId: branch.id, name: 'Branch One', idNumber: 'ORG-B1' });
  });

  test('in All organizations each row names its organization', async () => {
    expect((await choose(null)).status).toBe(200);
    const lines = await exported(superadmin);
    expect(lines[0]).toBe(
      'organization,name,idNumber,phone,notes,validFrom,validUntil,enabled,spaces,photoSha256,createdAt,updatedAt',
    );
    expect(lines.find((l) => l.includes('ORG-H1'))).toMatch(/^Head office,Home One,ORG-H1,/);
    expect(lines.find((l) => l.includes('ORG-B1'))).toMatch(
      /^"Branch, ""East""",Branch One,ORG-B1,/,
    );
  });

  test('limited to one organization, the file has no organization column', async () => {
    const own = await exported(admin);
    expect(own[0]).toMatch(/^name,idNumber,/);
    expect(own.some((l) => l.includes('ORG-B1'))).toBe(false);

    const branch = await suite.server.ctx.models.Organization.findOne({
      where: { name: 'Branch, "East"' },
    });
    expect((await choose(branch!.id)).status).toBe(200);
    try {
      const chosen = await exported(superadmin);
      expect(chosen[0]).toMatch(/^name,idNumber,/);
      expect(chosen.slice(1).map((l) => l.split(',')[1])).toEqual(['ORG-B1']);
    } finally {
      await choose(null);
    }
  });

  test('read back, a row of another organization than the one imported into is refused', async () => {
    // The superadmin works in all organizations, so the import goes to their own.
    const csv = (await exported(superadmin)).join('\r\n');
    const check = await upload(superadmin, { csv }, '/api/imports/people/check');
    expect(check.status).toBe(200);
    const body = check.body as unknown as ImportCheckOut;
    const rows = csv.split('\r\n').slice(1);
    const own = await suite.server.ctx.models.Organization.findByPk(
      await myOrganization(superadmin),
    );
    const others = rows.filter((l) => !l.startsWith(`${own!.name},`));
    expect(others.some((l) => l.includes('ORG-B1'))).toBe(true);
    expect(body.total).toBe(rows.length);
    expect(body.failed).toBe(others.length);
    expect(body.errors.flatMap((e) => e.reasons ?? []).map((r) => r.code)).toEqual(
      others.map(() => 'import_other_organization'),
    );
    const branchRow = body.errors.find((e) => e.idNumber === 'ORG-B1');
    expect(branchRow?.reasons?.[0]?.params).toEqual({
      field: 'organization',
      organization: 'Branch, "East"',
      importing: own!.name,
    });
    expect(branchRow?.error).toBe(
      `This row is of the organization "Branch, "East"", but this import goes to "${own!.name}": to import it, first choose "Branch, "East"" as the organization you work in.`,
    );
  });

  test('working in that organization, its rows of the same file are read', async () => {
    const csv = (await exported(superadmin)).join('\r\n');
    const branch = await suite.server.ctx.models.Organization.findOne({
      where: { name: 'Branch, "East"' },
    });
    expect((await choose(branch!.id)).status).toBe(200);
    try {
      const check = await upload(superadmin, { csv }, '/api/imports/people/check');
      const body = check.body as unknown as ImportCheckOut;
      expect(body.errors.some((e) => e.idNumber === 'ORG-B1')).toBe(false);
      expect(body.errors.some((e) => e.idNumber === 'ORG-H1')).toBe(true);
    } finally {
      await choose(null);
    }
  });
});
