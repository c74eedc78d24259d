/*
 * Planner design check for people search (not a test; `npm test` never runs it): seeds
 * BENCH_N (default 1,000,000) generated people once and keeps them for later runs
 * (/tmp/svc-bench-people2-<N>.sqlite and the MariaDB database svc_bench_people2_<N>; drop
 * them by hand), then prints p95 of searchPeople() for many filter combinations:
 *
 *   cd server && [SVC_TEST_MYSQL_HOST=127.0.0.1] NODE_OPTIONS=--experimental-vm-modules \
 *     npx jest --testMatch '**\/perf.bench.ts' src/people
 *
 * BENCH_ONLY=<label,…> picks cases, BENCH_LOOKUP pins the lookup threshold, BENCH_PRAGMA runs
 * SQLite pragmas first, BENCH_VERBOSE prints every timing. The end-to-end HTTP benchmark of
 * the issue is bench/people.mjs.
 */
import { randomUUID } from 'node:crypto';
import { performance } from 'node:perf_hooks';
import { QueryTypes, type Sequelize } from 'sequelize';
import { createSequelize } from '../platform/db/sequelize.js';
import { createMigrator } from '../platform/db/migrate.js';
import { scratchDb, DIALECTS } from '../test/dialects.js';
import { searchPeople, type PeopleSearch } from './store/search.js';
import { nameKey } from './keys.js';

const N = Number(process.env.BENCH_N ?? 1_000_000);
const syll = [
  'an',
  'ma',
  'ri',
  'ko',
  'le',
  'su',
  'ta',
  'no',
  'vi',
  'el',
  'or',
  'pa',
  'zé',
  'ö',
  'ba',
  'ji',
];
function mix(x: number) {
  x = Math.imul(x ^ (x >>> 16), 0x7feb352d) >>> 0;
  x = Math.imul(x ^ (x >>> 15), 0x846ca68b) >>> 0;
  return (x ^ (x >>> 16)) >>> 0;
}
function word(i: number, len: number) {
  i = mix(i);
  let s = '';
  for (let k = 0; k < len; k++) {
    s += syll[(i >>> (k * 4)) % 16]!;
    i = Math.imul(i, 2654435761) >>> 0;
  }
  return s[0]!.toUpperCase() + s.slice(1);
}
const q = (v: string) => `'${v.replace(/'/g, "''")}'`;

async function seed(sequelize: Sequelize) {
  const org = randomUUID();
  const now = "'2026-01-01 00:00:00.000'";
  await sequelize.query(
    `INSERT INTO organizations (id,name,created_at,updated_at) VALUES (${q(org)},'B',${now},${now})`,
  );
  const spaces: string[] = [];
  const big = randomUUID();
  const small = randomUUID();
  await sequelize.query(`INSERT INTO spaces VALUES (${q(big)},${q(org)},NULL,'big',${now},${now})`);
  await sequelize.query(
    `INSERT INTO spaces VALUES (${q(small)},${q(org)},NULL,'small',${now},${now})`,
  );
  for (let i = 0; i < 200; i++) {
    const id = randomUUID();
    spaces.push(id);
    await sequelize.query(
      `INSERT INTO spaces VALUES (${q(id)},${q(org)},${q(big)},'s${i}',${now},${now})`,
    );
  }
  const B = 1000;
  const t0 = performance.now();
  for (let start = 0; start < N; start += B) {
    const people: string[] = [];
    const ps: string[] = [];
    for (let i = start; i < Math.min(N, start + B); i++) {
      const id = randomUUID();
      const name = `${word(i * 7 + 1, 3)} ${word(i * 13 + 5, 4)}`;
      const idn = `AB${String(1000000 + ((i * 7919) % 9000000)).padStart(8, '0')}${i}`;
      people.push(
        `(${q(id)},${q(org)},${q(name)},${q(nameKey(name))},${q(idn)},NULL,NULL,NULL,NULL,1,NULL,1,${now},${now})`,
      );
      ps.push(`(${q(id)},${q(spaces[mix(i * 3 + 11) % 200]!)},${q(nameKey(name))})`);
      if (i % 3 === 0)
        ps.push(`(${q(id)},${q(spaces[mix(i * 5 + 7) % 200]!)},${q(nameKey(name))})`);
      if (mix(i * 13 + 1) % 10 === 0) ps.push(`(${q(id)},${q(big)},${q(nameKey(name))})`);
      if (mix(i * 17 + 3) % 20000 === 0) ps.push(`(${q(id)},${q(small)},${q(nameKey(name))})`);
    }
    await sequelize.query(`INSERT INTO people VALUES ${people.join(',')}`);
    const uniq = [...new Set(ps)];
    await sequelize.query(`INSERT INTO person_spaces VALUES ${uniq.join(',')}`);
  }
  // Spaces of exactly 300, 1,000 and 3,000 random members.
  for (const size of [300, 1000, 3000]) {
    const id = `00000000-0000-4000-8000-${String(size).padStart(12, '0')}`;
    await sequelize.query(
      `INSERT INTO spaces VALUES (${q(id)},${q(org)},NULL,'m${size}',${now},${now})`,
    );
    const random = sequelize.getDialect() === 'sqlite' ? 'RANDOM()' : 'RAND()';
    await sequelize.query(
      `INSERT INTO person_spaces SELECT id, ${q(id)}, name_key FROM people ORDER BY ${random} LIMIT ${size}`,
    );
  }
  console.log(`seeded ${N} in ${((performance.now() - t0) / 1000).toFixed(0)} s`);
  await sequelize.query(
    sequelize.getDialect() === 'sqlite' ? 'ANALYZE' : 'ANALYZE TABLE people, person_spaces',
  );
  return { org, spaces, big, small };
}

function p95(xs: number[]) {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length * 0.95)]!;
}

describe.each(DIALECTS)('people search bench on %s', (dialect) => {
  test('p95', async () => {
    const scratch = await scratchDb(dialect);
    const db =
      scratch.db.dialect === 'sqlite'
        ? { ...scratch.db, storage: `/tmp/svc-bench-people2-${N}.sqlite` }
        : { ...scratch.db, database: `svc_bench_people2_${N}` };
    await scratch.drop();
    if (db.dialect === 'mysql') {
      const admin = createSequelize({ ...db, database: '' });
      await admin.query(`CREATE DATABASE IF NOT EXISTS ${db.database} CHARACTER SET utf8mb4`);
      await admin.close();
    }
    const sequelize = createSequelize(db);
    await createMigrator(sequelize).up();
    const [existing] = await sequelize.query<{ id: string }>('SELECT id FROM organizations', {
      type: QueryTypes.SELECT,
    });
    let seeded;
    if (existing) {
      const org = existing.id;
      const all = await sequelize.query<{ id: string; name: string }>(
        'SELECT id, name FROM spaces ORDER BY name',
        { type: QueryTypes.SELECT },
      );
      const big = all.find((s) => s.name === 'big')!.id;
      const small = all.find((s) => s.name === 'small')!.id;
      const spaces = all
        .filter((s) => /^s\d+$/.test(s.name))
        .sort((a, b) => Number(a.name.slice(1)) - Number(b.name.slice(1)))
        .map((s) => s.id);
      seeded = { org, spaces, big, small };
    } else seeded = await seed(sequelize);
    const { org, spaces, big, small } = seeded;
    const ctx = { db: { sequelize, dialect } } as never;
    for (const pragma of (process.env.BENCH_PRAGMA ?? '').split(';').filter(Boolean)) {
      console.log(pragma, await sequelize.query(pragma, { type: QueryTypes.SELECT }));
    }
    const tuning = process.env.BENCH_LOOKUP
      ? { lookup: Number(process.env.BENCH_LOOKUP) }
      : undefined;
    const cases: [string, (i: number) => Partial<PeopleSearch>][] = [
      ['name prefix 3', (i) => ({ q: word(i * 7 + 1, 3).slice(0, 3) })],
      ['name prefix 1', (i) => ({ q: word(i * 7 + 1, 3).slice(0, 1) })],
      ['name prefix full', (i) => ({ q: word(i * 7 + 1, 3) + ' ' + word(i * 13 + 5, 2) })],
      [
        'id exact',
        (i) => ({ q: `AB${String(1000000 + ((i * 7919) % 9000000)).padStart(8, '0')}${i}` }),
      ],
      ['id prefix short', () => ({ q: 'AB01' })],
      ['space page', (i) => ({ spaceIds: [spaces[i % 200]!] })],
      ['space page 3', (i) => ({ spaceIds: [spaces[i % 200]!], page: 3 })],
      ['space pages 1-20', (i) => ({ spaceIds: [spaces[i % 200]!], page: 1 + (i % 20) })],
      ['big space', () => ({ spaceIds: [big] })],
      ['small space', () => ({ spaceIds: [small] })],
      ['space + q', (i) => ({ spaceIds: [spaces[i % 200]!], q: word(i * 7 + 1, 3).slice(0, 2) })],
      ['small + q', (i) => ({ spaceIds: [small], q: word(i * 7 + 1, 3).slice(0, 1) })],
      ['all', () => ({})],
      ['all -name', () => ({ sort: '-name' as const })],
      ['all idNumber', () => ({ sort: 'idNumber' as const })],
      [
        'name q sort idNumber',
        (i) => ({ q: word(i * 7 + 1, 3).slice(0, 2), sort: 'idNumber' as const }),
      ],
      ['enabled=false', () => ({ enabled: false })],
      ['descendants', () => ({ spaceIds: [big, ...spaces] })],
      ['m300', () => ({ spaceIds: ['00000000-0000-4000-8000-000000000300'] })],
      ['m1000', () => ({ spaceIds: ['00000000-0000-4000-8000-000000001000'] })],
      ['m3000', () => ({ spaceIds: ['00000000-0000-4000-8000-000000003000'] })],
      [
        'm3000 + q',
        (i) => ({
          spaceIds: ['00000000-0000-4000-8000-000000003000'],
          q: word(i * 7 + 1, 3).slice(0, 1),
        }),
      ],
    ];
    for (const [label, make] of cases.filter(
      ([l]) => !process.env.BENCH_ONLY || process.env.BENCH_ONLY.split(',').includes(l),
    )) {
      const times: number[] = [];
      let last: unknown;
      for (let i = 0; i < 40; i++) {
        const t = performance.now();
        last = await searchPeople(ctx, {
          organizationId: org,
          sort: 'name',
          page: 1,
          pageSize: 50,
          tuning,
          ...make(i * 997 + 3),
        });
        times.push(performance.now() - t);
      }
      if (process.env.BENCH_VERBOSE) console.log(times.map((t) => t.toFixed(0)).join(' '));
      const l = last as { ids: string[]; total: number; totalCapped: boolean };
      console.log(
        `${dialect} ${label}: p95 ${p95(times).toFixed(1)} ms (n=${l.ids.length} total=${l.total}${l.totalCapped ? '+' : ''})`,
      );
    }
    if (process.env.BENCH_EXPLAIN) {
      const r = await sequelize.query(process.env.BENCH_EXPLAIN, { type: QueryTypes.SELECT });
      console.log(r);
    }
    await sequelize.close();
  }, 3_600_000);
});
