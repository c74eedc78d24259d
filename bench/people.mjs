#!/usr/bin/env node
// People search benchmark (issue 4): 1,000,000 generated people (no real data) with space
// access, behind a real svc_server process. Measures person search by name prefix, by ID number,
// and a page of a space's people, with GET /api/heartbeat as the same-run baseline.
//
//   node bench/people.mjs [--people 1000000] [--db sqlite|mysql] [--requests 200]
//                         [--keep yes] [--reuse <sqlite data dir | mysql database>]
//                         [--profile <dir for the server's CPU profile>]
//   (--db mysql uses SVC_TEST_MYSQL_HOST/_PORT/_USER/_PASSWORD; needs `npm run build`.)
//   Seeding a million people takes minutes (25 on MariaDB here): --keep yes leaves the seeded
//   database behind and prints its name; --reuse measures it again (the administrator's
//   password is reset with `svc-admin`, as an operator would).
import { randomUUID } from 'node:crypto';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { flags, percentiles } from './lib.mjs';
import { adminSession, dropDatabase, startServer } from './server-process.mjs';

const args = flags();
const PEOPLE = Number(args.people ?? 1_000_000);
const REQUESTS = Number(args.requests ?? 200);
const DB = args.db ?? 'sqlite';
const REUSE = args.reuse;
const KEEP = args.keep === 'yes' || REUSE !== undefined;
const SPACES = 200;
const ROOT = fileURLToPath(new URL('..', import.meta.url));
const { createSequelize } = await import(path.join(ROOT, 'server/dist/platform/db/sequelize.js'));

// A small deterministic generator: the same data on every run, no real names.
let seed = 42;
const rand = () => (seed = (seed * 1103515245 + 12345) % 2147483648) / 2147483648;
const SYL = [
  'ka',
  'lo',
  'mi',
  'ren',
  'sa',
  'to',
  'vi',
  'an',
  'el',
  'or',
  'un',
  'ba',
  'de',
  'fi',
  'gu',
  'ha',
  'jo',
  'ku',
  'ly',
  'ne',
];
const word = (n) => Array.from({ length: n }, () => SYL[Math.floor(rand() * SYL.length)]).join('');
const cap = (w) => w[0].toUpperCase() + w.slice(1);
const nameKey = (n) =>
  n.normalize('NFKD').replace(/\p{M}/gu, '').toLowerCase().replace(/\s+/g, ' ').trim();

async function main() {
  const dataDir =
    DB === 'sqlite' && REUSE ? REUSE : mkdtempSync(path.join(os.tmpdir(), 'svc-bench-people-'));
  // --profile DIR: a CPU profile of the server process, written when it stops.
  const server = await startServer({
    ROOT,
    DB,
    dataDir,
    name: 'people',
    database: DB === 'mysql' ? REUSE : undefined,
    nodeArgs: args.profile ? ['--cpu-prof', '--cpu-prof-dir', args.profile] : [],
  });
  const { db } = server;

  const sequelize = createSequelize(db);
  const [[org]] = await sequelize.query('SELECT id FROM organizations LIMIT 1');
  const seeded = REUSE ? await samplesOf(sequelize, org) : await seedPeople(sequelize, org);
  const { samples, seedSeconds } = seeded;
  await sequelize.close();
  // The administrator's password: the one given to the first start, or on a reused database
  // a new one from the operator command.
  let password = server.password;
  if (REUSE) {
    const out = execFileSync(
      process.execPath,
      [path.join(ROOT, 'server/dist/platform/cli/admin.js'), 'reset-password', 'admin'],
      { env: server.env, encoding: 'utf8' },
    );
    password = readFileSync(/ is in (\S+) \(/.exec(out)[1], 'utf8').trim();
  }
  // An administrator session, as the site would have.
  const { json } = await adminSession(server.base, password);

  const timed = async (p) => {
    const t = process.hrtime.bigint();
    const body = await json('GET', p);
    return { ms: Number(process.hrtime.bigint() - t) / 1e6, body };
  };
  const run = async (make) => {
    const out = [];
    for (let i = 0; i < REQUESTS; i++) out.push((await timed(make(i))).ms);
    return percentiles(out);
  };
  // Warm-up, and a sanity check that the searches find what they should.
  const found = await timed(`/api/people?q=${encodeURIComponent(samples.ids[0])}`);
  if (!found.body.items.some((p) => p.idNumber === samples.ids[0]))
    throw new Error('ID search found nothing');
  const byName = await run(
    (i) =>
      `/api/people?q=${encodeURIComponent(samples.names[i % samples.names.length])}&pageSize=50`,
  );
  const byId = await run(
    (i) => `/api/people?q=${encodeURIComponent(samples.ids[i % samples.ids.length])}`,
  );
  const bySpace = await run(
    (i) => `/api/people?spaceId=${samples.spaces[i % SPACES]}&page=${1 + (i % 20)}&pageSize=50`,
  );
  const heartbeat = await run(() => '/api/heartbeat');
  const me = await run(() => '/api/auth/me');

  await server.stop();
  if (KEEP) {
    console.log(
      `kept the seeded database: --db ${DB} --reuse ${DB === 'mysql' ? db.database : dataDir}`,
    );
  } else {
    rmSync(dataDir, { recursive: true, force: true });
    if (DB === 'mysql') await dropDatabase(db);
  }
  const f = (n) => n.toFixed(1);
  const line = (label, s) =>
    `  ${label.padEnd(32)} p50 ${f(s.p50)} ms  p95 ${f(s.p95)} ms  max ${f(s.max)} ms  (p95 ${f(s.p95 / heartbeat.p95)}x heartbeat)`;
  console.log(
    `people bench (${DB}): ${REUSE ? `reused ${REUSE}` : `${PEOPLE} people, ${SPACES} spaces, seeded in ${f(seedSeconds)} s`}; ${REQUESTS} requests each`,
  );
  console.log(line('search by name prefix', byName));
  console.log(line('search by ID number', byId));
  console.log(line('page of a space’s people', bySpace));
  console.log(line('GET /api/heartbeat (baseline)', heartbeat));
  console.log(line('GET /api/auth/me (session baseline)', me));
  console.log('  goal: p95 under 50 ms for each search');
}

/** Seeds straight into the migrated database, in large multi-row inserts. */
async function seedPeople(sequelize, org) {
  const now = new Date();
  const spaceIds = Array.from({ length: SPACES }, () => randomUUID());
  await sequelize.query(
    `INSERT INTO spaces (id, organization_id, parent_id, name, created_at, updated_at) VALUES ${spaceIds.map(() => '(?, ?, NULL, ?, ?, ?)').join(', ')}`,
    { replacements: spaceIds.flatMap((id, i) => [id, org.id, `Area ${i}`, now, now]) },
  );
  const seedStart = Date.now();
  const samples = { names: [], ids: [], spaces: spaceIds };
  const BATCH = 2000;
  for (let done = 0; done < PEOPLE; done += BATCH) {
    const people = [];
    const access = [];
    for (let i = done; i < Math.min(PEOPLE, done + BATCH); i++) {
      const name = `${cap(word(2 + Math.floor(rand() * 2)))} ${cap(word(2 + Math.floor(rand() * 2)))}`;
      const id = randomUUID();
      const idNumber = `P${String(100_000_000 + i * 7)}`;
      const key = nameKey(name);
      people.push([id, org.id, name, key, idNumber, true, now, now]);
      access.push([id, spaceIds[Math.floor(rand() * SPACES)], key]);
      if (rand() < 0.5) {
        const other = spaceIds[Math.floor(rand() * SPACES)];
        if (other !== access[access.length - 1][1]) access.push([id, other, key]);
      }
      if (i % 5000 === 0) samples.names.push(nameKey(name).slice(0, 3 + (i % 3)));
      if (i % 5000 === 1) samples.ids.push(idNumber);
    }
    await sequelize.transaction(async (transaction) => {
      await sequelize.query(
        `INSERT INTO people (id, organization_id, name, name_key, id_number, enabled, created_at, updated_at) VALUES ${people.map(() => '(?, ?, ?, ?, ?, ?, ?, ?)').join(', ')}`,
        { replacements: people.flat(), transaction },
      );
      await sequelize.query(
        `INSERT INTO person_spaces (person_id, space_id, name_key) VALUES ${access.map(() => '(?, ?, ?)').join(', ')}`,
        {
          replacements: access.flat(),
          transaction,
        },
      );
    });
  }
  const seedSeconds = (Date.now() - seedStart) / 1000;
  if (DB === 'sqlite') await sequelize.query('ANALYZE');
  else await sequelize.query('ANALYZE TABLE people, person_spaces');
  return { samples, seedSeconds };
}

/** The samples `seedPeople` takes, read back from a database it seeded earlier. */
async function samplesOf(sequelize, org) {
  const [spaces] = await sequelize.query('SELECT id FROM spaces ORDER BY name');
  const [[{ n }]] = await sequelize.query('SELECT COUNT(*) AS n FROM people');
  const idOf = (i) => `P${String(100_000_000 + i * 7)}`;
  const ids = [];
  const nameAt = [];
  for (let i = 0; i < Number(n); i++) {
    if (i % 5000 === 0) nameAt.push(i);
    if (i % 5000 === 1) ids.push(idOf(i));
  }
  const [rows] = await sequelize.query(
    // With the organization: the ID-number index leads with it.
    `SELECT id_number, name_key FROM people WHERE organization_id = ? AND id_number IN (${nameAt.map(() => '?').join(', ')})`,
    { replacements: [org.id, ...nameAt.map(idOf)] },
  );
  const keys = new Map(rows.map((r) => [r.id_number, r.name_key]));
  const names = nameAt.map((i) => keys.get(idOf(i)).slice(0, 3 + (i % 3)));
  return { samples: { names, ids, spaces: spaces.map((r) => r.id) }, seedSeconds: 0 };
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
