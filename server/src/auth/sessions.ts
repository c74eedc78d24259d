import { createHash, randomBytes } from 'node:crypto';
import { Op, type Transaction } from 'sequelize';
import type { AdministratorRow, Models, SessionRow } from '../platform/db/models.js';
import type { Clock } from '../platform/clock.js';
import { readSession } from './store.js';

export const IDLE_TIMEOUT_MS = 30 * 60_000;
export const ABSOLUTE_TIMEOUT_MS = 12 * 3_600_000;
/** last_seen_at is written at most this often, so reads do not become writes. */
const TOUCH_EVERY_MS = 60_000;

export function tokenId(token: string): string {
  return createHash('sha256').update(token).digest('hex');
}

export type Resolved =
  | { kind: 'ok'; session: SessionRow; admin: AdministratorRow; twoFactorEnabled: boolean }
  | { kind: 'expired' }
  | { kind: 'none' };

/** Server-side sessions: the cookie holds a random token, the database its SHA-256. */
export class SessionService {
  constructor(private readonly deps: { models: Models; clock: Clock }) {}

  async create(
    administratorId: string,
    client: { ip?: string | undefined; userAgent?: string | undefined },
    transaction?: Transaction,
  ): Promise<string> {
    const token = randomBytes(32).toString('base64url');
    const now = this.deps.clock.now();
    await this.deps.models.Session.create(
      {
        id: tokenId(token),
        administratorId,
        createdAt: now,
        lastSeenAt: now,
        expiresAt: new Date(now.getTime() + ABSOLUTE_TIMEOUT_MS),
        ip: client.ip?.slice(0, 64) ?? null,
        userAgent: client.userAgent?.slice(0, 255) ?? null,
      },
      { transaction },
    );
    return token;
  }

  /** `touch: false` checks without counting as activity (a status poll is not the user). */
  async resolve(token: string, { touch = true }: { touch?: boolean } = {}): Promise<Resolved> {
    if (!/^[A-Za-z0-9_-]{43}$/.test(token)) return { kind: 'none' };
    // One statement: every session request runs this (store.ts).
    const read = await readSession(this.deps, tokenId(token));
    if (!read) return { kind: 'none' };
    const { session, admin } = read;
    const now = this.deps.clock.now().getTime();
    const idle = now - session.lastSeenAt.getTime() > IDLE_TIMEOUT_MS;
    if (idle || now >= session.expiresAt.getTime()) {
      await session.destroy();
      return { kind: 'expired' };
    }
    if (!admin || admin.disabled) {
      await session.destroy();
      return { kind: 'expired' };
    }
    if (touch && now - session.lastSeenAt.getTime() >= TOUCH_EVERY_MS) {
      await session.update({ lastSeenAt: new Date(now) });
    }
    return { kind: 'ok', session, admin, twoFactorEnabled: read.twoFactorEnabled };
  }

  async destroy(sessionId: string): Promise<void> {
    await this.deps.models.Session.destroy({ where: { id: sessionId } });
  }

  /** Ends every session of an administrator (disable, password reset, password change). */
  async destroyAllFor(
    administratorId: string,
    transaction?: Transaction,
    exceptSessionId?: string,
  ): Promise<number> {
    return this.deps.models.Session.destroy({
      where: {
        administratorId,
        ...(exceptSessionId && { id: { [Op.ne]: exceptSessionId } }),
      },
      transaction,
    });
  }

  async purgeExpired(): Promise<number> {
    const now = this.deps.clock.now().getTime();
    return this.deps.models.Session.destroy({
      where: {
        [Op.or]: [
          { expiresAt: { [Op.lte]: new Date(now) } },
          { lastSeenAt: { [Op.lt]: new Date(now - IDLE_TIMEOUT_MS) } },
        ],
      },
    });
  }
}
