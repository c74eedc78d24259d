import { jest } from '@jest/globals';
import { heartbeatResponse } from '@svc/shared';
import { DIALECTS } from '../test/dialects.js';
import { suiteServer } from '../test/suite.js';

describe.each(DIALECTS)('heartbeat database check through HTTP (%s)', (dialect) => {
  const suite = suiteServer(dialect);

  test('concurrent heartbeats share one database check; each answers state 1 with its headers', async () => {
    const ping = jest.spyOn(suite.server.ctx.db, 'ping');
    const answers = await Promise.all(
      Array.from({ length: 30 }, () => fetch(`${suite.server.url}/api/heartbeat`)),
    );
    for (const res of answers) {
      expect(res.status).toBe(200);
      expect(heartbeatResponse.parse(await res.json()).state).toBe(1);
      // Served ahead of the general chain, with the same headers.
      expect(res.headers.get('x-request-id')).toBeTruthy();
      expect(res.headers.get('x-content-type-options')).toBe('nosniff');
      expect(res.headers.get('cache-control')).toBe('no-store');
    }
    // One check, or two if the requests straddled the one-second reuse on a slow machine.
    expect(ping.mock.calls.length).toBeGreaterThanOrEqual(1);
    expect(ping.mock.calls.length).toBeLessThanOrEqual(2);
    ping.mockRestore();
  });
});
