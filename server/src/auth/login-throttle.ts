import { Op, fn, col } from 'sequelize';
import type { Models } from '../db/models.js';
import type { Clock } from '../clock.js';

interface Limit {
  scope: 'user' | 'ip';
  max: number;
  windowMs: number;
}

/**
 * Failed sign-ins per username and per client address, kept in the database so every server
 * process sees the same counts and an operator can unlock an account.
 * The (max + 1)th failure inside the window is refused with 429 until the window moves on.
 */
export const LOGIN_LIMITS: readonly Limit[] = [
  { scope: 'user', max: 10, windowMs: 60_000 },
  { scope: 'user', max: 30, windowMs: 3_600_000 },
  { scope: 'ip', max: 30, windowMs: 60_000 },
];
const KEEP_MS = 3_600_000;

export class LoginThrottle {
  constructor(private readonly deps: { models: Models; clock: Clock; limits?: readonly Limit[] }) {}

  private get limits() {
    return this.deps.limits ?? LOGIN_LIMITS;
  }

  /** Seconds to wait when either the username or the address is over a limit. */
  async retryAfterSeconds(username: string, ip: string): Promise<number | undefined> {
    const now = this.deps.clock.now().getTime();
    let wait = 0;
    for (const limit of this.limits) {
      const key = limit.scope === 'user' ? username : ip;
      const since = new Date(now - limit.windowMs);
      const rows = await this.deps.models.LoginFailure.findAll({
        attributes: [
          [fn('COUNT', col('id')), 'n'],
          [fn('MIN', col('at')), 'oldest'],
        ],
        where: { scope: limit.scope, key, at: { [Op.gt]: since } },
        raw: true,
      });
      const row = rows[0] as unknown as
        { n: number | string; oldest: Date | string | null } | undefined;
      if (row && Number(row.n) >= limit.max && row.oldest) {
        const oldest = new Date(row.oldest).getTime();
        wait = Math.max(wait, Math.ceil((oldest + limit.windowMs - now) / 1000));
      }
    }
    return wait > 0 ? wait : undefined;
  }

  async recordFailure(username: string, ip: string): Promise<void> {
    const at = this.deps.clock.now();
    await this.deps.models.LoginFailure.bulkCreate([
      { scope: 'user', key: username, at },
      { scope: 'ip', key: ip, at },
    ]);
  }

  /** Clears a username's failures: after a successful sign-in, or an operator's unlock. */
  async clearUser(username: string): Promise<void> {
    await this.deps.models.LoginFailure.destroy({ where: { scope: 'user', key: username } });
  }

  async purgeOld(): Promise<number> {
    const before = new Date(this.deps.clock.now().getTime() - KEEP_MS);
    return this.deps.models.LoginFailure.destroy({ where: { at: { [Op.lt]: before } } });
  }
}
