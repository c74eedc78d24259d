import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';

/**
 * Signed double-submit CSRF tokens (OWASP): the cookie carries a random nonce, the token is
 * `nonce.HMAC(secret, nonce)`. A cross-site page can neither read the token nor mint one, and a
 * cookie planted by a sibling host is useless without the server's secret.
 */
export class CsrfTokens {
  constructor(private readonly secret: Buffer) {}

  newNonce(): string {
    return randomBytes(18).toString('base64url');
  }

  tokenFor(nonce: string): string {
    return `${nonce}.${this.sign(nonce)}`;
  }

  isValidNonce(nonce: string | undefined): nonce is string {
    return typeof nonce === 'string' && /^[A-Za-z0-9_-]{24}$/.test(nonce);
  }

  verify(cookieNonce: string | undefined, headerToken: string | undefined): boolean {
    if (!this.isValidNonce(cookieNonce) || typeof headerToken !== 'string') return false;
    const [nonce, mac] = headerToken.split('.');
    if (nonce !== cookieNonce || !mac) return false;
    const expected = Buffer.from(this.sign(nonce));
    const given = Buffer.from(mac);
    return expected.length === given.length && timingSafeEqual(expected, given);
  }

  private sign(nonce: string): string {
    return createHmac('sha256', this.secret).update(nonce).digest('base64url');
  }
}
