import type { Sequelize } from 'sequelize';
import { CONFLICT_TRIES, isDeadlock, retryConflicts, retryOnDeadlock } from './deadlock.js';

const deadlock = () =>
  Object.assign(new Error('Deadlock found when trying to get lock'), {
    parent: { errno: 1213, code: 'ER_LOCK_DEADLOCK' },
  });

describe('retryOnDeadlock', () => {
  test('recognizes a deadlock by its MySQL error number or code, wrapped or not', () => {
    expect(isDeadlock(deadlock())).toBe(true);
    expect(isDeadlock({ code: 'ER_LOCK_DEADLOCK' })).toBe(true);
    expect(isDeadlock(Object.assign(new Error('x'), { parent: { errno: 1205 } }))).toBe(false);
    expect(isDeadlock(null)).toBe(false);
    // Galera's certification failure as some drivers report it: by SQLSTATE alone.
    expect(isDeadlock({ parent: { sqlState: '40001' } })).toBe(true);
  });

  test('tries again after a deadlock and returns what the next try gives', async () => {
    let calls = 0;
    const result = await retryOnDeadlock(() => {
      calls++;
      return calls < 3 ? Promise.reject(deadlock()) : Promise.resolve('claimed');
    });
    expect(result).toBe('claimed');
    expect(calls).toBe(3);
  });

  test('gives up after its tries, and throws any other error at once', async () => {
    let calls = 0;
    await expect(
      retryOnDeadlock(() => {
        calls++;
        return Promise.reject(deadlock());
      }, 2),
    ).rejects.toThrow('Deadlock');
    expect(calls).toBe(2);
    calls = 0;
    await expect(
      retryOnDeadlock(() => {
        calls++;
        return Promise.reject(new Error('connection lost'));
      }),
    ).rejects.toThrow('connection lost');
    expect(calls).toBe(1);
  });
});

describe('retryConflicts', () => {
  const fake = (failures: number) => {
    const calls = { transaction: 0, query: 0 };
    const sequelize = {
      transaction: (_o: unknown, fn?: unknown) => {
        calls.transaction++;
        if (typeof _o === 'function' || typeof fn === 'function') {
          return calls.transaction <= failures ? Promise.reject(deadlock()) : Promise.resolve('ok');
        }
        return Promise.resolve('unmanaged');
      },
      query: (_sql: string, opts?: { transaction?: unknown }) => {
        calls.query++;
        if (opts?.transaction) return Promise.reject(deadlock());
        return calls.query <= failures ? Promise.reject(deadlock()) : Promise.resolve([[], 1]);
      },
    };
    return { sequelize: sequelize as unknown as Sequelize, calls };
  };

  test('a managed transaction and an autocommit statement are run again, and counted', async () => {
    const stats = { retries: 0, givenUp: 0 };
    const { sequelize, calls } = fake(2);
    retryConflicts(sequelize, stats);
    await expect(sequelize.transaction(() => Promise.resolve())).resolves.toBe('ok');
    expect(calls.transaction).toBe(3);
    await expect(sequelize.query('UPDATE t SET n = 1')).resolves.toEqual([[], 1]);
    expect(calls.query).toBe(3);
    expect(stats).toEqual({ retries: 4, givenUp: 0 });
  });

  test("a statement of a transaction is its transaction's to retry; bounded tries", async () => {
    const stats = { retries: 0, givenUp: 0 };
    const { sequelize, calls } = fake(100);
    retryConflicts(sequelize, stats);
    await expect(sequelize.query('UPDATE t', { transaction: {} as never })).rejects.toThrow();
    expect(calls.query).toBe(1);
    await expect(sequelize.transaction(() => Promise.resolve())).rejects.toThrow('Deadlock');
    expect(calls.transaction).toBe(CONFLICT_TRIES);
    expect(stats).toEqual({ retries: CONFLICT_TRIES - 1, givenUp: 1 });
  });
});
