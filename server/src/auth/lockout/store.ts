import { Op, QueryTypes, type QueryInterface, type Sequelize, type Transaction } from 'sequelize';
import type { Models } from '../../platform/db/models.js';
import { readCommittedRetried } from '../../platform/db/deadlock.js';

export type Scope = 'user' | 'ip' | 'device';

export interface CountedKey {
  scope: Scope;
  key: string;
}

/** A limit applied to one key: at most `max` recorded attempts within `windowMs`. */
export interface KeyCheck extends CountedKey {
  max: number;
  windowMs: number;
}

export interface AttemptRow extends CountedKey {
  username: string;
  at: Date;
}

export interface OverLimit extends CountedKey {
  username: string | null;
  failures: number;
  /** When the count falls below the limit again (epoch ms). */
  until: number;
}

/** A guard row was missing (first attempt on a key, or purged meanwhile): create, try again. */
class MissingGuard extends Error {}

/**
 * The SQL of sign-in attempts: `login_failures` (one row per attempt that was evaluated, kept
 * while it failed) and `login_guards` (one row per key, locked while an attempt is counted).
 */
export class LoginFailureStore {
  private sqliteQueue: Promise<unknown> = Promise.resolve();

  constructor(private readonly deps: { sequelize: Sequelize; models: Models }) {}

  /**
   * Records `rows` unless a check is at its limit, as one step per key: on MySQL the attempt's
   * guard rows are locked first (an UPDATE in a transaction, so across server processes), on
   * SQLite the process's attempts take turns; N parallel attempts on one key are counted one
   * after another and at most the limit are let through. Returns when the first over-limit key frees up, or undefined when
   * the rows were recorded.
   */
  async reserve(
    keys: CountedKey[],
    checks: KeyCheck[],
    rows: AttemptRow[],
    now: Date,
  ): Promise<number | undefined> {
    const { sequelize } = this.deps;
    if (sequelize.getDialect() !== 'mysql') {
      // SQLite serves one process, and Sequelize opens a connection per transaction there
      // (busy under parallel writers): the attempts of this process queue up instead.
      const turn = this.sqliteQueue.then(() => this.countAndRecord(checks, rows, now));
      this.sqliteQueue = turn.catch(() => undefined);
      return turn;
    }
    for (let attempt = 0; ; attempt++) {
      try {
        // Once the guard rows are ours, each read sees the latest commit.
        return await readCommittedRetried(sequelize, (t) =>
          this.reserveLocked(keys, checks, rows, now, t),
        );
      } catch (err) {
        if (!(err instanceof MissingGuard) || attempt >= 3) throw err;
        await this.createGuards(keys);
      }
    }
  }

  private async reserveLocked(
    keys: CountedKey[],
    checks: KeyCheck[],
    rows: AttemptRow[],
    now: Date,
    transaction: Transaction,
  ): Promise<number | undefined> {
    // `uses` changes the row every time: MySQL counts changed rows, not matched ones.
    const changed = await this.deps.sequelize.query(
      `UPDATE login_guards SET uses = uses + 1, used_at = :now WHERE ${keys
        .map((_, i) => `(scope = :scope${i} AND ${this.q('key')} = :key${i})`)
        .join(' OR ')}`,
      {
        replacements: {
          now,
          ...Object.fromEntries(
            keys.flatMap((k, i) => [
              [`scope${i}`, k.scope],
              [`key${i}`, k.key],
            ]),
          ),
        },
        type: QueryTypes.BULKUPDATE,
        transaction,
      },
    );
    if (changed < keys.length) throw new MissingGuard();
    return this.countAndRecord(checks, rows, now, transaction);
  }

  private async countAndRecord(
    checks: KeyCheck[],
    rows: AttemptRow[],
    now: Date,
    transaction?: Transaction,
  ): Promise<number | undefined> {
    let until: number | undefined;
    for (const check of checks) {
      const over = await this.overLimitUntil(check, now, transaction);
      if (over !== undefined) until = Math.max(until ?? 0, over);
    }
    if (until !== undefined) return until;
    await this.deps.models.LoginFailure.bulkCreate(rows, { transaction });
    return undefined;
  }

  /** When `check`'s key falls below its limit, or undefined when it is below already. */
  private async overLimitUntil(
    check: KeyCheck,
    now: Date,
    transaction?: Transaction,
  ): Promise<number | undefined> {
    const recent = await this.deps.models.LoginFailure.findAll({
      attributes: ['at'],
      where: {
        scope: check.scope,
        key: check.key,
        at: { [Op.gt]: new Date(now.getTime() - check.windowMs) },
      },
      order: [['at', 'DESC']],
      limit: check.max,
      raw: true,
      transaction,
    });
    if (recent.length < check.max) return undefined;
    return new Date(recent[check.max - 1]!.at).getTime() + check.windowMs;
  }

  private async createGuards(keys: CountedKey[]): Promise<void> {
    const ignore = { ignoreDuplicates: true } as Parameters<QueryInterface['bulkInsert']>[2];
    await this.deps.sequelize.getQueryInterface().bulkInsert(
      'login_guards',
      keys.map((k) => ({ scope: k.scope, key: k.key, uses: 0 })),
      ignore,
    );
  }

  /** Removes one attempt's rows (it succeeded: it was no failure). */
  async forget(rows: AttemptRow[]): Promise<void> {
    await this.deps.models.LoginFailure.destroy({
      where: { [Op.or]: rows.map((r) => ({ scope: r.scope, key: r.key, at: r.at })) },
    });
  }

  async clearKey(scope: Scope, key: string): Promise<void> {
    await this.deps.models.LoginFailure.destroy({ where: { scope, key } });
  }

  /** Every failure aimed at a username: its own count and its device cookies'. */
  async clearUsername(username: string): Promise<number> {
    return this.deps.models.LoginFailure.destroy({
      where: {
        [Op.or]: [
          { scope: 'user', key: username },
          { scope: 'device', username },
        ],
      },
    });
  }

  /** Keys at a limit now, with the time each frees up (at most `cap` keys per limit). */
  async overLimit(limits: Omit<KeyCheck, 'key'>[], now: Date, cap: number): Promise<OverLimit[]> {
    const found = new Map<string, OverLimit>();
    for (const limit of limits) {
      const groups = await this.deps.sequelize.query<{
        key: string;
        username: string | null;
        n: number | string;
      }>(
        `SELECT ${this.q('key')} AS ${this.q('key')}, MAX(username) AS username, COUNT(*) AS n
         FROM login_failures WHERE scope = :scope AND at > :since
         GROUP BY ${this.q('key')} HAVING COUNT(*) >= :max LIMIT ${cap}`,
        {
          replacements: {
            scope: limit.scope,
            since: new Date(now.getTime() - limit.windowMs),
            max: limit.max,
          },
          type: QueryTypes.SELECT,
        },
      );
      for (const g of groups) {
        const until = await this.overLimitUntil({ ...limit, key: g.key }, now);
        if (until === undefined) continue;
        const id = `${limit.scope}\u0000${g.key}`;
        const seen = found.get(id);
        if (!seen || seen.until < until) {
          found.set(id, {
            scope: limit.scope,
            key: g.key,
            username: g.username,
            failures: Number(g.n),
            until,
          });
        }
      }
    }
    return [...found.values()].sort((a, b) => b.until - a.until);
  }

  /** Drops failures older than `before`, and guards not used since then. */
  async purge(before: Date): Promise<number> {
    const failures = await this.deps.models.LoginFailure.destroy({
      where: { at: { [Op.lt]: before } },
    });
    await this.deps.sequelize.query(
      'DELETE FROM login_guards WHERE used_at IS NULL OR used_at < :before',
      {
        replacements: { before },
        type: QueryTypes.BULKDELETE,
      },
    );
    return failures;
  }

  private q(identifier: string): string {
    return this.deps.sequelize.getQueryInterface().quoteIdentifier(identifier);
  }
}
