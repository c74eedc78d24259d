import type { AdminRole } from '@svc/shared';
import { HttpError } from '../platform/http/errors.js';
import { assertMayGrant, assertMayManage, removesEnabledSuperadmin } from './rules.js';

const ORG = 'org-1';
const OTHER = 'org-2';
const who = (role: AdminRole, organizationId = ORG) => ({
  id: `${role}-${organizationId}`,
  role,
  organizationId,
});
const status = (fn: () => void) => {
  try {
    fn();
    return 'ok';
  } catch (err) {
    return err instanceof HttpError ? err.status : 'other';
  }
};

describe('administrator rules', () => {
  test.each([
    ['admin', 'operator', ORG, 'ok'],
    ['admin', 'admin', ORG, 'ok'],
    ['admin', 'superadmin', ORG, 403],
    ['admin', 'operator', OTHER, 403],
    ['superadmin', 'superadmin', OTHER, 'ok'],
  ] as const)('%s granting %s in %s → %s', (actor, role, org, expected) => {
    expect(status(() => assertMayGrant(who(actor), role, org))).toBe(expected);
  });

  test.each([
    ['admin', who('operator'), 'ok'],
    ['admin', who('superadmin'), 403],
    ['admin', who('admin', OTHER), 403],
    ['superadmin', who('superadmin', OTHER), 'ok'],
  ] as const)('%s managing %o → %s', (actor, target, expected) => {
    expect(status(() => assertMayManage(who(actor), target))).toBe(expected);
  });

  test('which changes take a superadmin out of the enabled ones', () => {
    const enabledSuper = { role: 'superadmin' as const, disabled: false };
    expect(removesEnabledSuperadmin(enabledSuper, { role: 'admin' })).toBe(true);
    expect(removesEnabledSuperadmin(enabledSuper, { disabled: true })).toBe(true);
    expect(removesEnabledSuperadmin(enabledSuper, { role: 'superadmin', disabled: false })).toBe(
      false,
    );
    expect(
      removesEnabledSuperadmin({ role: 'superadmin', disabled: true }, { role: 'admin' }),
    ).toBe(false);
    expect(removesEnabledSuperadmin({ role: 'admin', disabled: false }, { disabled: true })).toBe(
      false,
    );
  });
});
