import { createHash, randomInt } from 'node:crypto';
import { Secret, TOTP } from 'otpauth';
import QRCode from 'qrcode';
import { SERVICE_NAME } from '@svc/shared';

/** RFC 6238 with the parameters every authenticator app understands. */
const PERIOD_S = 30;
const DIGITS = 6;
/** One step either side: a phone clock up to 30 s off still works. */
export const WINDOW = 1;
export const RECOVERY_CODES = 10;
/** Unambiguous letters and digits (no 0/O, 1/I/L). */
const ALPHABET = 'ABCDEFGHJKMNPQRSTUVWXYZ23456789';

export function newSecret(): string {
  return new Secret({ size: 20 }).base32;
}

function totp(secretBase32: string, username: string): TOTP {
  return new TOTP({
    issuer: SERVICE_NAME,
    label: username,
    secret: Secret.fromBase32(secretBase32),
    algorithm: 'SHA1',
    digits: DIGITS,
    period: PERIOD_S,
  });
}

/** The otpauth:// URI and its QR code (an SVG data URL the site shows as an image). */
export async function enrolment(
  secretBase32: string,
  username: string,
): Promise<{ uri: string; qrSvg: string }> {
  const uri = totp(secretBase32, username).toString();
  const svg = await QRCode.toString(uri, { type: 'svg', errorCorrectionLevel: 'M', margin: 2 });
  return { uri, qrSvg: `data:image/svg+xml;base64,${Buffer.from(svg).toString('base64')}` };
}

/** The time step a code belongs to, or null when it is wrong at `nowMs` (± WINDOW steps). */
export function matchingStep(secretBase32: string, code: string, nowMs: number): number | null {
  const token = code.replace(/\s+/g, '');
  if (!/^\d{6}$/.test(token)) return null;
  const delta = TOTP.validate({
    token,
    secret: Secret.fromBase32(secretBase32),
    digits: DIGITS,
    period: PERIOD_S,
    timestamp: nowMs,
    window: WINDOW,
  });
  return delta === null ? null : TOTP.counter({ period: PERIOD_S, timestamp: nowMs }) + delta;
}

/** For tests and the console's own checks: the code at `nowMs`. */
export function codeAt(secretBase32: string, nowMs: number): string {
  return TOTP.generate({
    secret: Secret.fromBase32(secretBase32),
    digits: DIGITS,
    period: PERIOD_S,
    timestamp: nowMs,
  });
}

/** Ten codes like `K7QM-2XPA-9TRD` (about 60 bits each). */
export function newRecoveryCodes(): string[] {
  return Array.from({ length: RECOVERY_CODES }, () => {
    const chars = Array.from({ length: 12 }, () => ALPHABET[randomInt(ALPHABET.length)]!);
    return [0, 4, 8].map((i) => chars.slice(i, i + 4).join('')).join('-');
  });
}

/** Codes are compared without dashes, spaces or case. */
export const normalizeRecoveryCode = (code: string) => code.replace(/[\s-]+/g, '').toUpperCase();

/**
 * A recovery code is random and long, so a plain SHA-256 keeps it safe at rest (a slow
 * password hash would only make ten comparisons slow).
 */
export function hashRecoveryCode(code: string): string {
  return createHash('sha256').update(normalizeRecoveryCode(code)).digest('hex');
}

/** A recovery code looks like one (12 of the alphabet's characters), not like a TOTP code. */
export const looksLikeRecoveryCode = (code: string) =>
  /^[A-Z0-9]{12}$/.test(normalizeRecoveryCode(code));
