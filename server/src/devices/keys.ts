import { createHash, randomBytes } from 'node:crypto';

/** 32 random bytes, base64url: 43 characters that fit the bearer-credential syntax. */
export function newDeviceKey(): string {
  return randomBytes(32).toString('base64url');
}

/** What `devices.key_hash` holds: the key itself is shown once and never stored in clear. */
export function hashDeviceKey(key: string): string {
  return createHash('sha256').update(key, 'utf8').digest('hex');
}
