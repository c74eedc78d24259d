import type { Access, RegisteredRoute } from './api.js';

/**
 * The routes svc_web keeps on plain HTTP when HTTPS is on (web/nginx.conf.template's
 * $svc_http_kept map), derived from the route table so the list cannot drift from the server.
 * Kept are the callers that cannot follow a redirect to a self-signed certificate and carry no
 * browser session: terminals and recognition devices (configured with an http:// central URL,
 * PROTOCOL §2, §3), the monitoring reads trusted networks may make without a session, and the
 * heartbeat. Everything a browser uses (sessions, sign-in) is redirected to HTTPS.
 */
export function keptOnHttp(route: RegisteredRoute): boolean {
  const kind: Access['kind'] = route.spec.access.kind;
  switch (kind) {
    case 'terminal':
    case 'device':
    case 'session-or-trusted':
      return true;
    case 'public':
      return route.spec.withoutDatabase === true;
    case 'session':
    case 'trusted-session':
      return false;
  }
}

/** The file the template includes in its map: `"<METHOD> <path>" 1;` per kept route. */
export function nginxHttpKeptMap(routes: readonly RegisteredRoute[]): string {
  const lines = routes.filter(keptOnHttp).map((route) => {
    const method = route.spec.method.toUpperCase();
    // Express parameters (':id') match one path segment; nginx then needs a regex.
    if (!route.fullPath.includes(':')) return `"${method} ${route.fullPath}" 1;`;
    const pattern = route.fullPath
      .split('/')
      .map((part) => (part.startsWith(':') ? '[^/]+' : part.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')))
      .join('/');
    return `"~^${method} ${pattern}$" 1;`;
  });
  return [
    '# Generated from the server route table (server/src/platform/http/nginx-map.ts): the routes svc_web',
    '# keeps on plain HTTP when HTTPS is on. Do not edit; after a route change run',
    '#   cd server && SVC_WRITE_NGINX_MAP=1 NODE_OPTIONS=--experimental-vm-modules npx jest src/platform/http/nginx-map.test.ts',
    ...[...new Set(lines)].sort(),
    '',
  ].join('\n');
}
