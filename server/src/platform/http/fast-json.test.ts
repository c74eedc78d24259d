import { errorBody } from '@svc/shared';
import { suiteServer } from '../../test/suite.js';

/**
 * Device routes read their JSON with their own reader and start with their own prelude
 * (fast-json.ts, device-entry.ts): the answers must be those of the general chain.
 */
describe('device route body and prelude', () => {
  const suite = suiteServer('sqlite');

  const post = (body: string | Buffer, type: string, extra: Record<string, string> = {}) =>
    fetch(`${suite.server.url}/api/device/heartbeat`, {
      method: 'POST',
      body,
      headers: {
        'content-type': type,
        authorization: `Bearer ${'k'.repeat(32)}`,
        ...extra,
      },
    });

  test.each([
    ['invalid JSON', '{"sn":', 'application/json', 400, 'invalid_json'],
    [
      'a JSON string (strict: object or array only)',
      '"SN-1"',
      'application/json',
      400,
      'invalid_json',
    ],
    [
      'another media type',
      'sn=SN-1',
      'application/x-www-form-urlencoded',
      415,
      'unsupported_media_type',
    ],
    [
      'another charset',
      '{"sn":"SN-1"}',
      'application/json; charset=latin1',
      415,
      'unsupported_media_type',
    ],
    [
      'over the limit',
      JSON.stringify({ sn: 'x'.repeat(5_000) }),
      'application/json',
      413,
      'payload_too_large',
    ],
    [
      'parsed (BOM, charset=utf-8): unknown key',
      '\ufeff{"sn":"SN-1"}',
      'application/json; charset=utf-8',
      401,
      'unauthorized',
    ],
  ])('%s', async (_name, body, type, status, code) => {
    const res = await post(body, type);
    expect(res.status).toBe(status);
    expect(errorBody.parse(await res.json()).error.code).toBe(code);
  });

  test('answers carry the request id, nosniff and no-store like every API answer', async () => {
    const res = await post('{"sn":"SN-1"}', 'application/json', { 'x-request-id': 'dev-req-1' });
    expect(res.headers.get('x-request-id')).toBe('dev-req-1');
    expect(res.headers.get('x-content-type-options')).toBe('nosniff');
    expect(res.headers.get('cache-control')).toBe('no-store');
    const fresh = await post('{"sn":"SN-1"}', 'application/json');
    expect(fresh.headers.get('x-request-id')).toMatch(/^[0-9a-f-]{36}$/);
  });
});
