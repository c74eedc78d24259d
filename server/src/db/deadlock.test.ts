import { isDeadlock, retryOnDeadlock } from './deadlock.js';

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
