import {
  twoFactorEnabled,
  twoFactorSetup,
  twoFactorStatus,
  type TwoFactorEnabled,
  type TwoFactorSetup,
  type TwoFactorStatus,
} from '@svc/shared';
import { request } from '../api';

/** `/api/auth/2fa…`: the signed-in administrator's own second factor. */
export function twoFactorState(signal?: AbortSignal): Promise<TwoFactorStatus> {
  return request('GET', '/api/auth/2fa', { schema: twoFactorStatus, signal });
}

export function startTwoFactor(password: string): Promise<TwoFactorSetup> {
  return request('POST', '/api/auth/2fa/setup', { body: { password }, schema: twoFactorSetup });
}

export function enableTwoFactor(code: string): Promise<TwoFactorEnabled> {
  return request('POST', '/api/auth/2fa/enable', { body: { code }, schema: twoFactorEnabled });
}
