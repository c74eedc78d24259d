import type { RequestHandler } from 'express';
import type { AdminRole, ForbiddenReason } from '@svc/shared';

/** What a `session` route demands of its administrator (Access in api.ts). */
export interface AdminRule {
  minRole?: AdminRole;
  allowPendingPasswordChange?: boolean;
  selfService?: boolean;
  /** The refusal's reason and sentence when the role is too low (e.g. superadmin-only routes). */
  denied?: { reason: ForbiddenReason; message: string };
}

/**
 * The session checks `Api` puts in front of a route. `http/` names them and `auth/` implements
 * them (`authGuards`, auth/middleware.ts): the platform depends on no feature, and the rules of
 * sessions, roles and CSRF live with the sessions.
 */
export interface AccessGuards {
  /** CSRF check for state-changing requests carrying the session cookie, or always (sign-in). */
  csrf(opts?: { always?: boolean }): RequestHandler;
  /** A signed-in administrator who meets `rule`. */
  admin(rule?: AdminRule): RequestHandler;
}
