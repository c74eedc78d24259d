import { readFileSync, writeFileSync } from 'node:fs';
import { suiteServer } from '../../test/suite.js';
import type { RegisteredRoute } from './api.js';
import { keptOnHttp, nginxHttpKeptMap } from './nginx-map.js';

/** Copied into the svc_web image and included by web/nginx.conf.template's map. */
const MAP_FILE = new URL('../../../../web/nginx-http-kept.map', import.meta.url);

describe('routes svc_web keeps on HTTP when HTTPS is on', () => {
  const suite = suiteServer('sqlite');

  test('web/nginx-http-kept.map is the one the route table gives', () => {
    const expected = nginxHttpKeptMap(suite.server.api.routes);
    if (process.env.SVC_WRITE_NGINX_MAP === '1') writeFileSync(MAP_FILE, expected);
    expect(readFileSync(MAP_FILE, 'utf8')).toBe(expected);
  });

  test('every terminal and device route is kept, among them the terminal check-in', () => {
    const map = nginxHttpKeptMap(suite.server.api.routes);
    const bearer = suite.server.api.routes.filter((r) =>
      ['terminal', 'device'].includes(r.spec.access.kind),
    );
    expect(bearer.length).toBeGreaterThanOrEqual(4);
    for (const r of bearer)
      expect(map).toContain(`"${r.spec.method.toUpperCase()} ${r.fullPath}" 1;`);
    expect(map).toContain('"POST /api/terminal/checkin" 1;');
    expect(map).toContain('"GET /api/heartbeat" 1;');
    expect(map).toContain('"GET /api/device/online-count" 1;');
  });

  test('no route a browser session uses stays on HTTP', () => {
    const map = nginxHttpKeptMap(suite.server.api.routes);
    for (const path of [
      '/api/auth/login',
      '/api/auth/csrf',
      '/api/people',
      '/api/discovery/configure',
    ]) {
      expect(map).not.toContain(` ${path}"`);
    }
    const sessionRoutes = suite.server.api.routes.filter((r) => r.spec.access.kind === 'session');
    expect(sessionRoutes.length).toBeGreaterThan(10);
    expect(sessionRoutes.some(keptOnHttp)).toBe(false);
  });

  test('a path parameter becomes a one-segment regex', () => {
    const route = {
      spec: { method: 'post', path: '/device/:sn/ping', access: { kind: 'device' } },
      fullPath: '/api/device/:sn/ping',
    } as unknown as RegisteredRoute;
    expect(nginxHttpKeptMap([route])).toContain('"~^POST /api/device/[^/]+/ping$" 1;');
  });
});
