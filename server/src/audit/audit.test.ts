import { auditList } from '@svc/shared';
import { signedIn } from '../test/admins.js';
import { DIALECTS } from '../test/dialects.js';
import { suiteServer } from '../test/suite.js';
import { errorCode, type TestClient } from '../test/http-client.js';
import { createOrganization } from '../test/org-fixtures.js';

/** Issue 22: the audit log searched by actor, action, object and time, and exported as CSV. */
describe.each(DIALECTS)('audit search and export on %s', (dialect) => {
  let admin: TestClient;
  const base = Date.parse('2026-03-01T10:00:00.000Z');
  const at = (minutes: number) => new Date(base + minutes * 60_000);
  const iso = (minutes: number) => at(minutes).toISOString();

  const suite = suiteServer(dialect);
  beforeAll(async () => {
    admin = await signedIn(suite.server, 'admin', 'auditor');
    const org = (await suite.server.ctx.models.Administrator.findOne({
      where: { username: 'auditor' },
    }))!.organizationId;
    const foreign = await createOrganization(suite.server, 'Elsewhere');
    const row = (
      minutes: number,
      actorName: string,
      action: string,
      targetId: string | null,
      organizationId = org,
      summary = `${action} by ${actorName}`,
    ) => ({
      at: at(minutes),
      organizationId,
      actorId: null,
      actorName,
      action,
      outcome: 'success',
      targetType: targetId === null ? null : 'person',
      targetId,
      ip: '127.0.0.1',
      summary,
    });
    await suite.server.ctx.models.Audit.bulkCreate([
      row(0, 'alice', 'enrollment.change_approve', 'p-1'),
      row(1, 'alice', 'enrollment.change_reject', 'p-2'),
      row(2, 'bob', 'enrollment.change_request', 'p-1'),
      row(3, 'bob', 'person.update', 'p-1', org, '=HYPERLINK("http://x")'),
      row(4, 'alicia', 'space.create', null),
      row(2, 'alice', 'enrollment.change_approve', 'p-1', foreign),
    ]);
  });

  const search = async (query: string) => {
    const reply = await admin.get(`/api/audit?${query}`);
    expect(reply.status).toBe(200);
    const list = auditList.parse(reply.body);
    return list.items.map((e) => `${e.actor} ${e.action} ${e.target?.id ?? '-'}`);
  };

  test('actor and action match from the start; the object and time exactly; newest first', async () => {
    const window = `from=${iso(0)}&to=${iso(10)}`;
    expect(await search(`${window}&action=enrollment.change`)).toEqual([
      'bob enrollment.change_request p-1',
      'alice enrollment.change_reject p-2',
      'alice enrollment.change_approve p-1',
    ]);
    expect(await search(`${window}&actor=alic`)).toEqual([
      'alicia space.create -',
      'alice enrollment.change_reject p-2',
      'alice enrollment.change_approve p-1',
    ]);
    expect(await search(`${window}&targetType=person&targetId=p-1&actor=bob`)).toEqual([
      'bob person.update p-1',
      'bob enrollment.change_request p-1',
    ]);
    expect(await search(`from=${iso(1)}&to=${iso(1)}&actor=a`)).toEqual([
      'alice enrollment.change_reject p-2',
    ]);
    // A LIKE wildcard is only a character here.
    expect(await search(`${window}&action=%25`)).toEqual([]);
    const paged = auditList.parse((await admin.get(`/api/audit?${window}&pageSize=2&page=2`)).body);
    expect([paged.total, paged.items.length]).toEqual([5, 2]);
  });

  test('bad filters are refused with a clear error; operators may not read the log', async () => {
    const bad = await admin.get('/api/audit?from=yesterday');
    expect([bad.status, errorCode(bad)]).toEqual([400, 'invalid_input']);
    const badExport = await admin.get('/api/exports/audit.csv?outcome=maybe');
    expect([badExport.status, errorCode(badExport)]).toEqual([400, 'invalid_input']);
    const operator = await signedIn(suite.server, 'operator');
    for (const path of ['/api/audit', '/api/exports/audit.csv']) {
      const denied = await operator.get(path);
      expect([denied.status, errorCode(denied)]).toEqual([403, 'forbidden']);
    }
  });

  test('the export holds every match as CSV, formulas neutralized, and is itself audited', async () => {
    const reply = await admin.get(`/api/exports/audit.csv?from=${iso(0)}&to=${iso(10)}&actor=bob`);
    expect(reply.status).toBe(200);
    expect(reply.headers.get('content-type')).toBe('text/csv; charset=utf-8');
    expect(reply.headers.get('content-disposition')).toContain('audit.csv');
    const lines = String(reply.body)
      .replace(/^\ufeff/, '')
      .trimEnd()
      .split('\r\n');
    expect(lines[0]).toBe('at,actor,action,outcome,targetType,targetId,ip,summary');
    expect(lines.slice(1).map((l) => l.split(',').slice(0, 3).join(' '))).toEqual([
      `${iso(2)} bob enrollment.change_request`,
      `${iso(3)} bob person.update`,
    ]);
    expect(lines[2]).toContain(`"'=HYPERLINK(""http://x"")"`);
    const recorded = auditList.parse((await admin.get('/api/audit?action=audit.export')).body);
    expect(recorded.items.map((e) => [e.actor, e.summary])).toEqual([
      ['auditor', 'audit log exported as CSV'],
    ]);
    expect(recorded.items[0]).toMatchObject({ summaryCode: 'audit_exported', summaryParams: {} });
  });
  test('entries carry their summary as a code and its values; older rows carry none (issue 34)', async () => {
    const created = await admin.post('/api/spaces', { name: 'Coded hall' });
    expect(created.status).toBe(201);
    const id = (created.body as { id: string }).id;
    const renamed = await admin.request('PATCH', `/api/spaces/${id}`, {
      body: { name: 'Coded hall 2' },
      csrf: true,
    });
    expect(renamed.status).toBe(200);
    expect((await admin.request('DELETE', `/api/spaces/${id}`, { csrf: true })).status).toBe(204);
    const person = await admin.post('/api/people', { name: 'Coded Person', idNumber: 'CODE-1' });
    expect(person.status).toBe(201);

    const coded = async (query: string) =>
      auditList
        .parse((await admin.get(`/api/audit?${query}`)).body)
        .items.map((e) => [e.summaryCode, e.summaryParams]);
    expect(await coded(`targetType=space&targetId=${id}`)).toEqual([
      ['space_deleted', { name: 'Coded hall 2' }],
      ['space_updated', { name: 'Coded hall 2', previousName: 'Coded hall', moved: 'no' }],
      ['space_created', { name: 'Coded hall', root: 'true' }],
    ]);
    expect(await coded(`targetId=${(person.body as { id: string }).id}`)).toEqual([
      ['person_created', { fields: 'idNumber,name' }],
    ]);
    // Written before codes (the rows above, stored without one): the English summary stands.
    expect(await coded('actor=alicia')).toEqual([[null, null]]);
  });
});
