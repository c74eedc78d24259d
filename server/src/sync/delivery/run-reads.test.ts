import type { Sequelize } from 'sequelize';
import type { AppContext } from '../../platform/context.js';
import type { TaskRow } from '../tasks/rows.js';
import { RunReads } from './run-reads.js';

/** A stand-in connection answering the people query: every read's ids are recorded. */
function peopleConnection(versions: Map<string, number>) {
  const reads: string[][] = [];
  const sequelize = {
    query: (_sql: string, opts: { replacements: { ids: string[] } }) => {
      reads.push([...opts.replacements.ids]);
      return Promise.resolve(
        opts.replacements.ids.map((id) => ({
          id,
          name: `Person ${id}`,
          idNumber: id,
          photoSha256: 'a'.repeat(64),
          version: versions.get(id) ?? 1,
          validFrom: null,
          validUntil: null,
        })),
      );
    },
  } as unknown as Sequelize;
  const deps = { sync: { db: { sequelize } } } as unknown as Pick<
    AppContext,
    'sync' | 'photoVariants'
  >;
  return { deps, reads };
}

const task = (personId: string, personVersion = 1): TaskRow => ({
  id: `task-${personId}`,
  organizationId: 'org',
  personId,
  deviceId: 'device',
  action: 'put',
  lane: 'bulk',
  personVersion,
  photoSha256: 'a'.repeat(64),
  attempts: 0,
  nextAttemptAt: new Date(0),
  resultVersion: null,
});

describe('RunReads: the people a worker run keeps', () => {
  test('full: the people kept longest make room, the others are not read again', async () => {
    const { deps, reads } = peopleConnection(new Map());
    const run = new RunReads(deps, 3);
    await run.prefetch(['p1', 'p2', 'p3'].map((id) => task(id)));
    await run.prefetch(['p3', 'p4'].map((id) => task(id)));
    // p1 went; p2 and p3 are still kept, so the next device's claim reads nobody.
    await run.prefetch(['p2', 'p3', 'p4'].map((id) => task(id)));
    expect(reads).toEqual([['p1', 'p2', 'p3'], ['p4']]);
    expect(await run.person('p2')).toMatchObject({ id: 'p2', version: 1 });
  });

  test('a task aiming at a newer version reads the person again, who is then kept longest', async () => {
    const versions = new Map([['p1', 1]]);
    const { deps, reads } = peopleConnection(versions);
    const run = new RunReads(deps, 2);
    await run.prefetch([task('p1'), task('p2')]);
    versions.set('p1', 2);
    await run.prefetch([task('p1', 2)]);
    expect((await run.person('p1'))?.version).toBe(2);
    // p2 is now the oldest: p3 takes its place, p1 stays.
    await run.prefetch([task('p3')]);
    await run.prefetch([task('p1', 2), task('p3')]);
    expect(reads).toEqual([['p1', 'p2'], ['p1'], ['p3']]);
  });
});
