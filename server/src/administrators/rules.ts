import type { AdminRole } from '@svc/shared';
import type { AdministratorRow } from '../platform/db/models.js';
import { httpErrors } from '../platform/http/errors.js';

type Actor = Pick<AdministratorRow, 'id' | 'role' | 'organizationId'>;
type Target = Pick<AdministratorRow, 'id' | 'role' | 'organizationId'>;

/**
 * Who may give which role where: an `admin` manages `admin` and `operator` accounts of their own
 * organization; only a `superadmin` grants `superadmin` or works in another organization.
 * (Operators never get here: every write needs at least `admin`.)
 */
export function assertMayGrant(actor: Actor, role: AdminRole, organizationId: string): void {
  if (actor.role === 'superadmin') return;
  if (role === 'superadmin') {
    throw httpErrors.forbidden('Only a super administrator can give the super administrator role.');
  }
  if (organizationId !== actor.organizationId) {
    throw httpErrors.forbidden(
      'Only a super administrator can manage administrators of another organization.',
    );
  }
}

/** A superadmin's account is changed only by a superadmin (else an admin could demote one). */
export function assertMayManage(actor: Actor, target: Target): void {
  if (actor.role === 'superadmin') return;
  if (target.role === 'superadmin') {
    throw httpErrors.forbidden(
      'Only a super administrator can change a super administrator’s account.',
    );
  }
  if (target.organizationId !== actor.organizationId) {
    throw httpErrors.forbidden(
      'Only a super administrator can manage administrators of another organization.',
    );
  }
}

/** Whether a change takes a superadmin out of the enabled superadmins. */
export function removesEnabledSuperadmin(
  target: Pick<AdministratorRow, 'role' | 'disabled'>,
  change: { role?: AdminRole | undefined; disabled?: boolean | undefined },
): boolean {
  if (target.role !== 'superadmin' || target.disabled) return false;
  return (change.role !== undefined && change.role !== 'superadmin') || change.disabled === true;
}
