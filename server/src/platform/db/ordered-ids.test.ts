import { QueryTypes, type Sequelize } from 'sequelize';
import { DIALECTS, scratchDb, type ScratchDb } from '../../test/dialects.js';
import { orderedUuid, orderedUuidSql, randomHexColumn } from './ordered-ids.js';
import { createSequelize } from './sequelize.js';

const V7 = /^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

describe('time-ordered ids', () => {
  test('version 7 UUIDs: the millisecond first, so later ids sort after earlier ones', () => {
    const at = Date.UTC(2026, 10, 25, 12, 0, 0, 1);
    const ids = Array.from({ length: 2000 }, (_, i) => orderedUuid(at + Math.floor(i / 100)));
    for (const id of ids) expect(id).toMatch(V7);
    expect(new Set(ids).size).toBe(ids.length);
    expect(ids[0]!.slice(0, 13).replace('-', '')).toBe(at.toString(16).padStart(12, '0'));
    // Within a millisecond the order is random; across milliseconds it is the time's.
    for (let i = 100; i < ids.length; i += 100) expect(ids[i - 1]! < ids[i + 99]!).toBe(true);
  });
});

describe.each(DIALECTS)('time-ordered ids computed by the database (%s)', (dialect) => {
  let scratch: ScratchDb;
  let sequelize: Sequelize;
  beforeAll(async () => {
    scratch = await scratchDb(dialect);
    sequelize = createSequelize(scratch.db);
  });
  afterAll(async () => {
    await sequelize?.close();
    await scratch?.drop();
  });

  test('one per row, all different, in the statement time order', async () => {
    const d = sequelize.getDialect();
    const rows = (ms: number) =>
      sequelize.query<{ id: string }>(
        `SELECT ${orderedUuidSql(d, ms)} AS id FROM (SELECT ${randomHexColumn(d)} AS h
          FROM (SELECT 1 AS x UNION ALL SELECT 2 UNION ALL SELECT 3 UNION ALL SELECT 4) a,
            (SELECT 1 AS y UNION ALL SELECT 2 UNION ALL SELECT 3 UNION ALL SELECT 4) b) r`,
        { type: QueryTypes.SELECT },
      );
    const first = (await rows(1_764_072_000_000)).map((r) => r.id);
    const second = (await rows(1_764_072_000_001)).map((r) => r.id);
    for (const id of [...first, ...second]) expect(id).toMatch(V7);
    expect(new Set([...first, ...second]).size).toBe(32);
    expect(first.every((a) => second.every((b) => a < b))).toBe(true);
    expect(first[0]!.slice(0, 13)).toBe(orderedUuid(1_764_072_000_000).slice(0, 13));
  });
});
