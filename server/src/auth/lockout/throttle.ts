import type { Sequelize } from 'sequelize';
import type { Models } from '../../platform/db/models.js';
import type { Clock } from '../../platform/clock.js';
import { LoginFailureStore, type AttemptRow, type KeyCheck, type Scope } from './store.js';

export interface Limit {
  scope: Scope;
  max: number;
  windowMs: number;
}

/**
 * Failed sign-ins, kept in the database so every server process sees the same counts. As
 * OWASP's account-lockout guidance has it, a client that holds a device cookie from an earlier
 * successful sign-in of the account is counted by that cookie alone; every other client of the
 * account shares one count per username (and one per address). So an attacker who knows only
 * the username locks out untrusted clients, never the owner's own browser.
 */
export const UNTRUSTED_LIMITS: readonly Limit[] = [
  { scope: 'user', max: 10, windowMs: 60_000 },
  { scope: 'user', max: 30, windowMs: 3_600_000 },
  { scope: 'ip', max: 30, windowMs: 60_000 },
];
export const DEVICE_LIMITS: readonly Limit[] = [
  { scope: 'device', max: 10, windowMs: 60_000 },
  { scope: 'device', max: 30, windowMs: 3_600_000 },
];
/**
 * Wrong second-factor codes after a correct password, per account: only someone who holds the
 * password can spend these, so an outsider cannot use them against the owner.
 */
export const CODE_LIMITS: readonly Limit[] = [
  { scope: 'user', max: 5, windowMs: 5 * 60_000 },
  { scope: 'user', max: 20, windowMs: 3_600_000 },
];
export const codeKey = (username: string) => `2fa:${username}`;
const KEEP_MS = 3_600_000;

export interface LoginClient {
  ip: string;
  /** The id of a valid device cookie of this username, when the client sent one. */
  device?: string | undefined;
}

/** An attempt that was counted before its password was checked. */
export interface Attempt {
  rows: AttemptRow[];
  username: string;
  device?: string | undefined;
}

export type Reservation =
  { kind: 'counted'; attempt: Attempt } | { kind: 'limited'; retryAfterS: number };

export interface Lockout {
  scope: Scope;
  key: string;
  username: string | null;
  failures: number;
  until: Date;
}

export class LoginThrottle {
  private readonly store: LoginFailureStore;

  constructor(private readonly deps: { sequelize: Sequelize; models: Models; clock: Clock }) {
    this.store = new LoginFailureStore(deps);
  }

  /**
   * Counts an attempt before its password is checked (so parallel attempts cannot all slip
   * under a limit), or refuses it while one of its keys is at a limit. A refused attempt is
   * not counted: hammering does not extend a lockout.
   */
  async reserve(username: string, client: LoginClient): Promise<Reservation> {
    const now = this.deps.clock.now();
    const keys = client.device
      ? [{ scope: 'device' as const, key: client.device }]
      : [
          { scope: 'ip' as const, key: client.ip.slice(0, 128) },
          { scope: 'user' as const, key: username },
        ];
    const limits = client.device ? DEVICE_LIMITS : UNTRUSTED_LIMITS;
    const checks: KeyCheck[] = limits.map((l) => ({
      ...l,
      key: keys.find((k) => k.scope === l.scope)!.key,
    }));
    const rows = keys.map((k) => ({ ...k, username, at: now }));
    const until = await this.store.reserve(keys, checks, rows, now);
    if (until !== undefined) {
      return {
        kind: 'limited',
        retryAfterS: Math.max(1, Math.ceil((until - now.getTime()) / 1000)),
      };
    }
    return { kind: 'counted', attempt: { rows, username, device: client.device } };
  }

  /** Counts a second-factor code before it is checked (after a correct password only). */
  async reserveCode(username: string): Promise<Reservation> {
    const now = this.deps.clock.now();
    const key = { scope: 'user' as const, key: codeKey(username) };
    const checks: KeyCheck[] = CODE_LIMITS.map((l) => ({ ...l, key: key.key }));
    const rows = [{ ...key, username, at: now }];
    const until = await this.store.reserve([key], checks, rows, now);
    if (until !== undefined) {
      return {
        kind: 'limited',
        retryAfterS: Math.max(1, Math.ceil((until - now.getTime()) / 1000)),
      };
    }
    return { kind: 'counted', attempt: { rows, username } };
  }

  /** The code was right: its count starts again. */
  async codeSucceeded(attempt: Attempt): Promise<void> {
    await this.store.forget(attempt.rows);
    await this.store.clearKey('user', codeKey(attempt.username));
  }

  /**
   * The password was right: the attempt was no failure, and the count it was judged by starts
   * again (the device cookie's, or the username's for untrusted clients).
   */
  async succeeded(attempt: Attempt): Promise<void> {
    await this.store.forget(attempt.rows);
    if (attempt.device) await this.store.clearKey('device', attempt.device);
    else await this.store.clearKey('user', attempt.username);
  }

  /** Clears a username's lockouts (its own and its device cookies'): an administrator's unlock. */
  async clearUser(username: string): Promise<number> {
    return this.store.clearUsername(username);
  }

  /** The keys locked out now, latest release first. */
  async lockouts(): Promise<Lockout[]> {
    const found = await this.store.overLimit(
      [...UNTRUSTED_LIMITS, ...DEVICE_LIMITS],
      this.deps.clock.now(),
      500,
    );
    return found.map((f) => ({ ...f, until: new Date(f.until) }));
  }

  async purgeOld(): Promise<number> {
    return this.store.purge(new Date(this.deps.clock.now().getTime() - KEEP_MS));
  }
}
