import { jest } from '@jest/globals';
import { Priorities, PrioritizedSequelize } from './urgency.js';

/** Statements that record the order they start in and finish on demand. */
function fakeConnection(depth?: number) {
  const priorities = new Priorities(depth);
  const started: string[] = [];
  const finish: (() => void)[] = [];
  const query = (sql: string) =>
    priorities.schedule(
      () =>
        new Promise<string>((resolve) => {
          started.push(sql);
          finish.push(() => resolve(sql));
        }),
    );
  const settle = async () => {
    finish.shift()?.();
    await new Promise((resolve) => setImmediate(resolve));
  };
  return { priorities, query, started, settle };
}

describe('statements taking turns by urgency', () => {
  test('one statement at a time; urgent ones start before ordinary ones queued earlier', async () => {
    const { priorities, query, started, settle } = fakeConnection(1);
    const a = query('bulk 1');
    const b = query('bulk 2');
    const c = priorities.urgent(() => query('read for a waiting person'));
    expect(started).toEqual(['bulk 1']);
    await settle();
    expect(started).toEqual(['bulk 1', 'read for a waiting person']);
    await settle();
    await settle();
    expect(started).toEqual(['bulk 1', 'read for a waiting person', 'bulk 2']);
    await expect(Promise.all([a, b, c])).resolves.toEqual([
      'bulk 1',
      'bulk 2',
      'read for a waiting person',
    ]);
  });

  test('two in flight by default: the next starts while one runs, urgent ones still first', async () => {
    const { priorities, query, started, settle } = fakeConnection();
    const queries = [query('plan range 1'), query('read 1')];
    queries.push(query('success write'));
    queries.push(priorities.urgent(() => query('read for a waiting person')));
    expect(started).toEqual(['plan range 1', 'read 1']);
    await settle();
    expect(started).toEqual(['plan range 1', 'read 1', 'read for a waiting person']);
    await settle();
    expect(started).toHaveLength(4);
    expect(started[3]).toBe('success write');
    await settle();
    await settle();
    await Promise.all(queries);
  });

  test('ordinary leaves urgency: a device plan started by an urgent check queues in order', async () => {
    const { priorities, query, started, settle } = fakeConnection(1);
    const first = query('read 1');
    const record = query('success write');
    const device = priorities.urgent(async () =>
      priorities.ordinary(() => query('device plan read')),
    );
    const check = priorities.urgent(() => query('fingerprint'));
    for (let i = 0; i < 4; i++) await settle();
    expect(started).toEqual(['read 1', 'fingerprint', 'success write', 'device plan read']);
    await Promise.all([first, record, device, check]);
  });

  test('the urgency is one connection’s: another connection’s order is its own', async () => {
    const one = fakeConnection(1);
    const two = fakeConnection(1);
    void two.query('bulk on two');
    void two.query('ordinary on two');
    // Urgent for the first connection only: the second keeps its arrival order.
    void one.priorities.urgent(() => two.query('urgent on one, sent to two'));
    await two.settle();
    expect(two.started).toEqual(['bulk on two', 'ordinary on two']);
    await two.settle();
    await two.settle();
  });
});

describe('PrioritizedSequelize', () => {
  test('its statements take their turn; a transaction’s go straight through', async () => {
    const sequelize = new PrioritizedSequelize(
      { dialect: 'sqlite', storage: ':memory:', logging: false },
      1,
    );
    const schedule = jest.spyOn(sequelize.priorities, 'schedule');
    try {
      await sequelize.query('SELECT 1');
      expect(schedule).toHaveBeenCalledTimes(1);
      await sequelize.transaction(async (transaction) => {
        await sequelize.query('SELECT 2', { transaction });
      });
      // BEGIN and COMMIT name their transaction too.
      expect(schedule).toHaveBeenCalledTimes(1);
    } finally {
      await sequelize.close();
    }
  });
});
