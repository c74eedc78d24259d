import type { AdminRole } from '@svc/shared';
import type { Access, RouteSpec } from '../http/api.js';

type Method = RouteSpec<undefined, undefined, undefined>['method'];

const STATE_CHANGING = new Set<Method>(['post', 'put', 'patch', 'delete']);

/**
 * The least role a session needs on a route — the rule requireAdmin applies (operators are
 * read-only unless a route is self-service). Undefined for routes without a session.
 */
export function effectiveRole(access: Access, method: Method): AdminRole | undefined {
  switch (access.kind) {
    case 'session':
      return (
        access.minRole ?? (STATE_CHANGING.has(method) && !access.selfService ? 'admin' : 'operator')
      );
    case 'trusted-session':
      return access.minRole;
    case 'session-or-trusted':
      return 'operator';
    default:
      return undefined;
  }
}

/** Who may call a route, in words: the operation description and the browsable page. */
export function accessText(access: Access, method: Method): string {
  const role = effectiveRole(access, method);
  switch (access.kind) {
    case 'public':
      return 'Access: anyone, no credential.';
    case 'session':
      return [
        `Access: an administrator session with role ${role} or higher.`,
        access.selfService ? 'Self-service: acts on the signed-in administrator only.' : '',
        access.allowPendingPasswordChange
          ? 'Allowed while the password must be changed.'
          : 'Refused (403 password_change_required) while the password must be changed.',
      ]
        .filter(Boolean)
        .join(' ');
    case 'session-or-trusted':
      return (
        'Access: an administrator session, or any client inside TRUSTED_NETWORKS without ' +
        'a session (401 from elsewhere without one).'
      );
    case 'trusted-session':
      return (
        `Access: an administrator session with role ${role} or higher, from a client inside ` +
        'TRUSTED_NETWORKS only (403 untrusted_network from elsewhere).'
      );
    case 'terminal':
      return 'Access: a terminal token as Authorization: Bearer <token> (PROTOCOL §2).';
    case 'device':
      return 'Access: the recognition device key as Authorization: Bearer <key> (PROTOCOL §3).';
  }
}
