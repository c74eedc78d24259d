import { randomUUID } from 'node:crypto';
import { errorBody, type ErrorBody, type PersonOut, type SpaceOut } from '@svc/shared';
import { DIALECTS } from '../test/dialects.js';
import type { TestServer } from '../test/harness.js';
import type { Reply, TestClient } from '../test/http-client.js';
import { signedIn } from '../test/admins.js';
import { suiteServer } from '../test/suite.js';

/**
 * Issue 34: a field refused after the schema check (the database decided it) carries its code
 * and values in `fieldCodes`, so the site says it beside the field in the reader's language.
 */
const refusal = (reply: Reply): ErrorBody['error'] => errorBody.parse(reply.body).error;
const codes = (reply: Reply) => refusal(reply).fieldCodes ?? {};
const newId = () => `F-${randomUUID().slice(0, 8).toUpperCase()}`;

describe.each(DIALECTS)('field refusals by code on %s', (dialect) => {
  let server: TestServer;
  let admin: TestClient;

  const suite = suiteServer(dialect);
  beforeAll(async () => {
    server = suite.server;
    admin = await signedIn(server, 'admin');
  });
  afterAll(async () => {});

  test('people: a taken ID number, an unknown space, control characters', async () => {
    const idNumber = newId();
    expect((await admin.post('/api/people', { name: 'First', idNumber })).status).toBe(201);
    const taken = await admin.post('/api/people', { name: 'Second', idNumber });
    expect([taken.status, refusal(taken).code, refusal(taken).params]).toEqual([
      409,
      'conflict',
      { reason: 'id_number_taken' },
    ]);
    expect(codes(taken)).toEqual({ idNumber: { code: 'id_number_used' } });

    const unknown = await admin.post('/api/people', {
      name: 'Third',
      idNumber: newId(),
      spaceIds: [randomUUID()],
    });
    expect([unknown.status, codes(unknown)]).toEqual([
      400,
      { spaceIds: { code: 'no_such_space' } },
    ]);
    const person = (await admin.post('/api/people', { name: 'Fourth', idNumber: newId() }))
      .body as PersonOut;
    const lines = await admin.request('PATCH', `/api/people/${person.id}`, {
      body: { name: 'Two\nLines' },
      csrf: true,
    });
    expect([lines.status, codes(lines)]).toEqual([400, { name: { code: 'control_characters' } }]);
  });

  test('spaces: a sibling with the name; devices: an unknown space, photo sides', async () => {
    const parent = (await admin.post('/api/spaces', { name: 'Codes parent' })).body as SpaceOut;
    expect((await admin.post('/api/spaces', { name: 'Hall', parentId: parent.id })).status).toBe(
      201,
    );
    const twin = await admin.post('/api/spaces', { name: 'hall', parentId: parent.id });
    expect([twin.status, refusal(twin).code]).toEqual([409, 'duplicate_space_name']);
    expect(codes(twin)).toEqual({ name: { code: 'space_name_used', params: { name: 'Hall' } } });

    const device = (sn: string, extra: Record<string, unknown>) =>
      admin.post('/api/devices', { sn, name: 'Gate', baseUrl: 'http://127.0.0.1:9', ...extra });
    const nowhere = await device(newId(), { spaceId: randomUUID() });
    expect([nowhere.status, codes(nowhere)]).toEqual([400, { spaceId: { code: 'no_such_space' } }]);
    const sides = await device(newId(), { minPhotoSide: 900, maxPhotoPixels: 800 });
    expect([sides.status, codes(sides)]).toEqual([
      400,
      { minPhotoSide: { code: 'photo_side_order', params: { max: 800 } } },
    ]);
  });

  test('uploads: a person photo and a handover report, refused by field code', async () => {
    const person = (await admin.post('/api/people', { name: 'Photo', idNumber: newId() }))
      .body as PersonOut;
    const base64 = await admin.request('PUT', `/api/people/${person.id}/photo`, {
      body: { photo: '!!!not base64!!!' },
      csrf: true,
    });
    expect([base64.status, codes(base64)]).toEqual([400, { photo: { code: 'photo_base64' } }]);
    const broken = await admin.request('PUT', `/api/people/${person.id}/photo`, {
      raw: 'not multipart at all',
      headers: { 'content-type': 'multipart/form-data; boundary=x' },
      csrf: true,
    });
    expect([broken.status, codes(broken)]).toEqual([400, { photo: { code: 'upload_malformed' } }]);

    const notJson = await admin.post('/api/acceptance/reports', { report: 'hello' });
    expect([notJson.status, codes(notJson)]).toEqual([
      400,
      { report: { code: 'report_not_json' } },
    ]);
    const other = await admin.post('/api/acceptance/reports', { report: '{"a":1}' });
    expect([other.status, codes(other)]).toEqual([400, { report: { code: 'report_not_report' } }]);
  });

  test('display names: control, bidi and invisible-only names refused by code, never a 500', async () => {
    const superadmin = await signedIn(server, 'superadmin');
    const bad: [string, string][] = [
      ['Nul\u0000Byte', 'control_characters'],
      ['Bell\u0007', 'control_characters'],
      ['Tab\tInside', 'control_characters'],
      ['Two\nLines', 'control_characters'],
      ['C1\u0085Next', 'control_characters'],
      ['\u202Eevil', 'bidi_characters'],
      ['Isolate\u2066x\u2069', 'bidi_characters'],
      ['\u200B\u200B', 'invisible_name'],
      [' \u2060\uFEFF\u200C ', 'invisible_name'],
    ];
    const org = (await superadmin.post('/api/organizations', { name: `Names ${newId()}` }))
      .body as { id: string };
    const space = (await admin.post('/api/spaces', { name: `Names ${newId()}` })).body as SpaceOut;
    const person = (await admin.post('/api/people', { name: 'Plain', idNumber: newId() }))
      .body as PersonOut;
    const device = (
      await admin.post('/api/devices', { sn: newId(), name: 'Gate', baseUrl: 'http://127.0.0.1:9' })
    ).body as { id: string };
    const account = (
      await admin.post('/api/administrators', { username: `n${Date.now()}`, role: 'operator' })
    ).body as { id: string };
    for (const [value, code] of bad) {
      const patch = (client: TestClient, path: string, body: Record<string, unknown>) =>
        client.request('PATCH', path, { body, csrf: true });
      const replies: [string, string, Reply][] = [
        ['org create', 'name', await superadmin.post('/api/organizations', { name: value })],
        [
          'org rename',
          'name',
          await patch(superadmin, `/api/organizations/${org.id}`, { name: value }),
        ],
        ['space create', 'name', await admin.post('/api/spaces', { name: value })],
        ['space rename', 'name', await patch(admin, `/api/spaces/${space.id}`, { name: value })],
        [
          'person create',
          'name',
          await admin.post('/api/people', { name: value, idNumber: newId() }),
        ],
        ['person rename', 'name', await patch(admin, `/api/people/${person.id}`, { name: value })],
        [
          'device create',
          'name',
          await admin.post('/api/devices', {
            sn: newId(),
            name: value,
            baseUrl: 'http://127.0.0.1:9',
          }),
        ],
        ['device rename', 'name', await patch(admin, `/api/devices/${device.id}`, { name: value })],
        [
          'administrator create',
          'displayName',
          await admin.post('/api/administrators', {
            username: `n${Date.now()}`,
            displayName: value,
            role: 'operator',
          }),
        ],
        [
          'administrator rename',
          'displayName',
          await patch(admin, `/api/administrators/${account.id}`, { displayName: value }),
        ],
      ];
      for (const [what, field, reply] of replies) {
        expect([what, JSON.stringify(value), reply.status, codes(reply)]).toEqual([
          what,
          JSON.stringify(value),
          400,
          { [field]: { code } },
        ]);
      }
    }
    // Scripts written right to left, and joiners inside a name, are names like any other.
    for (const name of ['علي حسن', 'שרה', 'क्\u200Dष']) {
      const ok = await admin.post('/api/people', { name, idNumber: newId() });
      expect([ok.status, (ok.body as PersonOut).name]).toEqual([201, name]);
    }
  });
});
