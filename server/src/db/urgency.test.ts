import type { Sequelize } from 'sequelize';
import { asOrdinary, asUrgent, prioritized } from './urgency.js';

/** A stand-in connection that records the order statements start in and finishes on demand. */
function fakeConnection(depth?: number) {
  const started: string[] = [];
  const finish: (() => void)[] = [];
  const sequelize = {
    query: (sql: string) =>
      new Promise<string>((resolve) => {
        started.push(sql);
        finish.push(() => resolve(sql));
      }),
  } as unknown as Sequelize;
  const settle = async () => {
    finish.shift()?.();
    await new Promise((resolve) => setImmediate(resolve));
  };
  return {
    sequelize: depth === undefined ? prioritized(sequelize) : prioritized(sequelize, depth),
    started,
    settle,
  };
}

describe('prioritized connection', () => {
  test('one statement at a time; urgent ones start before ordinary ones queued earlier', async () => {
    const { sequelize, started, settle } = fakeConnection(1);
    const a = sequelize.query('bulk 1');
    const b = sequelize.query('bulk 2');
    const c = asUrgent(() => sequelize.query('claim for a waiting person'));
    expect(started).toEqual(['bulk 1']);
    await settle();
    expect(started).toEqual(['bulk 1', 'claim for a waiting person']);
    await settle();
    await settle();
    expect(started).toEqual(['bulk 1', 'claim for a waiting person', 'bulk 2']);
    await expect(Promise.all([a, b, c])).resolves.toEqual([
      'bulk 1',
      'bulk 2',
      'claim for a waiting person',
    ]);
  });

  test('two in flight by default: the next starts while one runs, urgent ones still first', async () => {
    const { sequelize, started, settle } = fakeConnection();
    const queries = [sequelize.query('plan range 1'), sequelize.query('claim 1')];
    queries.push(sequelize.query('success write'));
    queries.push(asUrgent(() => sequelize.query('claim for a waiting person')));
    expect(started).toEqual(['plan range 1', 'claim 1']);
    await settle();
    expect(started).toEqual(['plan range 1', 'claim 1', 'claim for a waiting person']);
    await settle();
    expect(started).toHaveLength(4);
    expect(started[3]).toBe('success write');
    await settle();
    await settle();
    await Promise.all(queries);
  });

  test('asOrdinary leaves urgency: a device plan started by an urgent check queues in order', async () => {
    const { sequelize, started, settle } = fakeConnection(1);
    const first = sequelize.query('claim 1');
    const record = sequelize.query('success write');
    const device = asUrgent(async () => asOrdinary(() => sequelize.query('device plan read')));
    const check = asUrgent(() => sequelize.query('fingerprint'));
    for (let i = 0; i < 4; i++) await settle();
    expect(started).toEqual(['claim 1', 'fingerprint', 'success write', 'device plan read']);
    await Promise.all([first, record, device, check]);
  });

  test("a transaction's statements are not held back behind others", () => {
    const { sequelize, started } = fakeConnection(1);
    void sequelize.query('bulk 1');
    void sequelize.query('inside a transaction', { transaction: {} as never });
    expect(started).toEqual(['bulk 1', 'inside a transaction']);
  });
});
