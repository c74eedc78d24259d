import type { AdministratorRow, SessionRow } from '../db/models.js';

export interface AuthContext {
  admin: AdministratorRow;
  session: SessionRow;
  /** The administrator has confirmed a second factor (read with the session). */
  twoFactorEnabled: boolean;
  /**
   * Two-factor sign-in is required and this administrator has not enrolled: like a pending
   * password change, only the routes that allow it answer.
   */
  twoFactorEnrolmentRequired?: boolean;
}

declare global {
  // eslint-disable-next-line @typescript-eslint/no-namespace
  namespace Express {
    interface Request {
      /** The request id (X-Request-Id), set by the access log or the device entry. */
      id?: string;
      /** Set by the session loader when a valid session cookie came with the request. */
      auth?: AuthContext;
      /** True when a session cookie came but named an ended or expired session. */
      sessionExpired?: boolean;
    }
  }
}
