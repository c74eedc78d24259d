import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';

/** How long a device cookie is honoured; every successful sign-in issues a fresh one. */
export const DEVICE_COOKIE_MAX_AGE_S = 30 * 24 * 3600;
const PREFIX = 'svc_device_';
const ID = /^[A-Za-z0-9_-]{24}$/;

/**
 * Device cookies (OWASP "Slow down online guessing attacks with device cookies"): set at a
 * successful sign-in, bound to the username by an HMAC, so a client that presents one for the
 * account it signs in to is counted on its own (lockout/throttle.ts). One cookie per account
 * (its name is derived from the username without revealing it), HttpOnly, SameSite=Strict,
 * sent only to the sign-in route.
 */
export class DeviceCookies {
  constructor(private readonly key: Buffer) {}

  /** The cookie's name for an account. */
  nameFor(username: string): string {
    return PREFIX + this.mac(`name|${username}`).slice(0, 16);
  }

  /**
   * A stable keyed pseudonym of a username that names no account (lockout counts and the audit
   * log keep this, never the text typed, which is often a password in the wrong field).
   */
  pseudonym(username: string): string {
    return this.mac(`unknown|${username}`).slice(0, 10);
  }

  /**
   * A new cookie value for an account: `<id>.<issued, epoch s>.<mac>`. The id is what failures
   * are counted by; the signed issue time ends it even where a client ignores Max-Age.
   */
  issue(username: string, now: Date): { id: string; value: string } {
    const id = randomBytes(18).toString('base64url');
    const issued = String(Math.floor(now.getTime() / 1000));
    return { id, value: `${id}.${issued}.${this.mac(`device|${username}|${id}|${issued}`)}` };
  }

  /** The cookie's id when `value` is an unexpired cookie this server issued for `username`. */
  verify(username: string, value: string | undefined, now: Date): string | undefined {
    if (typeof value !== 'string') return undefined;
    const [id, issued, mac, extra] = value.split('.');
    if (!id || !issued || !mac || extra !== undefined || !ID.test(id) || !/^\d{1,12}$/.test(issued))
      return undefined;
    const ageS = now.getTime() / 1000 - Number(issued);
    if (ageS < -300 || ageS > DEVICE_COOKIE_MAX_AGE_S) return undefined;
    const expected = Buffer.from(this.mac(`device|${username}|${id}|${issued}`));
    const given = Buffer.from(mac);
    return expected.length === given.length && timingSafeEqual(expected, given) ? id : undefined;
  }

  private mac(text: string): string {
    return createHmac('sha256', this.key).update(text).digest('base64url');
  }
}
