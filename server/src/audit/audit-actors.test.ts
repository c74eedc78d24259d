import { readFileSync } from 'node:fs';
import path from 'node:path';
import { auditActorCodes, auditList } from '@svc/shared';
import { signedIn } from '../test/admins.js';
import { DIALECTS } from '../test/dialects.js';
import type { TestServer } from '../test/harness.js';
import { suiteServer } from '../test/suite.js';

/** The site's names of non-administrator actors, in one language (web/src/locales). */
function siteActors(language: 'en' | 'zh-CN'): Record<string, string> {
  const file = path.resolve(import.meta.dirname, `../../../web/src/locales/${language}.json`);
  return (
    JSON.parse(readFileSync(file, 'utf8')) as { audit: { actorKind: Record<string, string> } }
  ).audit.actorKind;
}

/**
 * Issue 34: a row written by the service itself (a job, sync, discovery, retention), an
 * operator command or a terminal names its actor by code, so the site says it in the reader's
 * language; an administrator's own name stays as recorded.
 */
describe.each(DIALECTS)('audit actors by code on %s', (dialect) => {
  let server: TestServer;

  const suite = suiteServer(dialect);
  beforeAll(() => {
    server = suite.server;
  });

  test('the service, a terminal and an operator command by code; a username as is', async () => {
    const admin = await signedIn(server, 'superadmin');
    const actors = [
      undefined,
      { id: null, name: 'system' },
      { id: null, name: 'operator command' },
      { id: null, name: 'terminal T-42' },
      { id: null, name: 'announce from 10.0.0.9' },
      { id: null, name: 'alice' },
    ];
    for (const [i, actor] of actors.entries()) {
      await server.ctx.audit.record({ action: `test.actor${i}`, ...(actor && { actor }) });
    }
    const reply = await admin.get('/api/audit?action=test.actor&pageSize=50');
    expect(reply.status).toBe(200);
    const byAction = new Map(auditList.parse(reply.body).items.map((e) => [e.action, e]));
    const got = actors.map((_, i) => {
      const e = byAction.get(`test.actor${i}`)!;
      return [e.actorCode, e.actorParams];
    });
    expect(got).toEqual([
      ['service', {}],
      ['service', {}],
      ['operator_command', {}],
      ['terminal', { id: 'T-42' }],
      ['announce', { from: '10.0.0.9' }],
      [null, {}],
    ]);
  });

  test('the site names every actor code in en and zh-CN', () => {
    for (const language of ['en', 'zh-CN'] as const) {
      const names = siteActors(language);
      for (const code of auditActorCodes)
        expect([language, code, names[code]]).toEqual([language, code, expect.any(String)]);
    }
  });
});
