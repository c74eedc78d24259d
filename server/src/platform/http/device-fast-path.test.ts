import { randomUUID } from 'node:crypto';
import { deviceWithKey } from '@svc/shared';
import { suiteServer } from '../../test/suite.js';
import { signedIn } from '../../test/admins.js';

/**
 * POST /api/recognition/events is answered ahead of Express in the plain case
 * (device-fast-path.ts). A query string sends the same request the general way, so every
 * answer of one path is compared with the other's: status, body and headers.
 */
describe('device fast path answers like the general path', () => {
  let key: string;
  let sn: string;
  const suite = suiteServer('sqlite');
  beforeAll(async () => {
    const admin = await signedIn(suite.server, 'admin');
    sn = `FAST-${randomUUID().slice(0, 8)}`;
    const reply = await admin.post('/api/devices', {
      sn,
      name: 'Fast gate',
      baseUrl: 'http://127.0.0.1:9',
    });
    key = deviceWithKey.parse(reply.body).key;
  });

  const event = (over: Record<string, unknown> = {}) =>
    JSON.stringify({
      eventId: randomUUID(),
      sn,
      personId: null,
      score: 0.5,
      time: new Date().toISOString(),
      ...over,
    });

  /** The answer of each path, with what legitimately differs (date, new request ids) left out. */
  const both = async (body: string, headers: Record<string, string> = {}) => {
    const answers = [];
    for (const path of ['/api/recognition/events', '/api/recognition/events?via=general']) {
      const res = await fetch(`${suite.server.url}${path}`, {
        method: 'POST',
        body,
        headers: {
          'content-type': 'application/json',
          authorization: `Bearer ${key}`,
          'x-request-id': 'same-id',
          ...headers,
        },
      });
      const seen = [...res.headers].filter(([name]) => !['date', 'keep-alive'].includes(name));
      answers.push({ status: res.status, body: await res.json(), headers: seen });
    }
    expect(answers[0]).toEqual(answers[1]);
    return answers[0]!;
  };

  test.each([
    ['invalid JSON', '{"sn":', {}, 400],
    ['a JSON string', '"x"', {}, 400],
    ['missing fields', '{"sn":"X"}', {}, 400],
    ['unknown key', null, { authorization: `Bearer ${'k'.repeat(32)}` }, 401],
    ['another serial number', 'other-sn', {}, 401],
    ['over the limit', 'big', {}, 413],
    ['an empty body', '', {}, 400],
  ] as const)('%s', async (_name, body, headers, status) => {
    const text =
      body === null
        ? event()
        : body === 'other-sn'
          ? event({ sn: 'OTHER-1' })
          : body === 'big'
            ? event({ snapshot: 'A'.repeat(900_000) })
            : body;
    const answer = await both(text, headers);
    expect(answer.status).toBe(status);
  });

  test('a new event is 202 on either path, a resend 200 with the same id', async () => {
    const first = await fetch(`${suite.server.url}/api/recognition/events`, {
      method: 'POST',
      body: event(),
      headers: { 'content-type': 'application/json', authorization: `Bearer ${key}` },
    });
    expect(first.status).toBe(202);
    expect(first.headers.get('content-type')).toBe('application/json; charset=utf-8');
    expect(first.headers.get('cache-control')).toBe('no-store');
    expect(first.headers.get('x-content-type-options')).toBe('nosniff');
    const body = event();
    const fast = await fetch(`${suite.server.url}/api/recognition/events`, {
      method: 'POST',
      body,
      headers: { 'content-type': 'application/json', authorization: `Bearer ${key}` },
    });
    expect(fast.status).toBe(202);
    const { id } = (await fast.json()) as { id: string };
    const again = await both(body);
    expect(again).toMatchObject({ status: 200, body: { id } });
  });
});
