import { QueryTypes } from 'sequelize';
import { idNumber as idNumberSchema, type PeopleQuery } from '@svc/shared';
import type { AppContext } from '../../platform/context.js';
import { canonicalIdNumber, nameKey } from '../keys.js';
import {
  ID_INDEX,
  TABLE_SCAN,
  NAME_INDEX,
  Params,
  SORTS,
  SearchSql,
  type Branch,
  type Plan,
} from './search-sql.js';

/**
 * People search at a million rows, on SQLite and MySQL/MariaDB, without trusting either query
 * planner: each page is read along an index chosen here from cheap, capped counts.
 *
 * - `q` is two branches, a name prefix (index organization_id, name_key, id) OR an ID-number
 *   prefix (unique index organization_id, id_number). On SQLite a prefix is the range
 *   `key >= p AND key < successor(p)` (BINARY compares code points); on MySQL it is
 *   `LIKE 'p%'` (escaped), which the optimizer turns into a range that is correct under
 *   utf8mb4_unicode_ci — a `< p + U+FFFF` bound would not be — plus the same LIKE under
 *   utf8mb4_bin, so both databases answer exact code-point prefixes. A branch that matches
 *   nobody is dropped; both answer as one list, ordered by the database.
 * - Random row lookups are what costs at a million rows (on MariaDB with a small buffer pool
 *   each is a disk read), sequential index reads are cheap. So a candidate set of at most
 *   LOOKUP people (a space's members, a branch's range) is looked up and sorted; otherwise
 *   the sort's index is walked in order and the other conditions are hashed sets — read once,
 *   sequentially, from their own index — or, for a space of more than COUNT_CAP members
 *   (dense enough that few rows are walked), a primary-key probe per row.
 * - A space's people in name order (with or without a name prefix) need no walk at all:
 *   each access row carries the person's name_key, indexed per space (spaceOrdered).
 * - `total` counts at most COUNT_CAP matches, by the cheapest driver; beyond that the
 *   answer says `totalCapped: true`. Most totals need no query at all: the planning counts
 *   are exact when nothing else filters. See countMatches for the one lower-bound case.
 */

export const COUNT_CAP = 10_000;
/** Candidate sets up to this size are looked up row by row and sorted. */
const LOOKUP = 2_000;
/** Rows of a `q` range a count reads at most when a large space filters it too. */
const BOUNDED_WINDOW = 20_000;
/** Up to this many spaces, a name-ordered page merges each space's own name-ordered index. */
const MAX_ORDERED_SPACES = 32;

/** How a page is read: a Plan, or each space's (space_id, name_key, person_id) index. */
type PagePlan = Plan | { kind: 'spaceOrder' };

export interface PeopleSearch {
  /** null: every organization (superadmin). */
  organizationId: string | null;
  q?: string | undefined;
  /** People with direct access to any of these spaces (the caller expands descendants). */
  spaceIds?: string[] | undefined;
  enabled?: boolean | undefined;
  sort: PeopleQuery['sort'];
  page: number;
  pageSize: number;
  /** Tests lower these to drive every plan with a few rows. */
  tuning?: { lookup?: number; countCap?: number; window?: number; spaceIndex?: boolean };
}

export interface PeoplePage {
  /** Person ids of the page, in order. */
  ids: string[];
  total: number;
  totalCapped: boolean;
}

/** The branches `q` stands for; [] when nothing can match it, undefined without q. */
function branchesOf(q: string | undefined): Branch[] | undefined {
  if (q === undefined || q === '') return undefined;
  const out: Branch[] = [];
  const name = nameKey(q);
  if (name !== '') out.push({ column: 'name_key', index: NAME_INDEX, prefix: name });
  const id = canonicalIdNumber(q);
  // Characters no ID number may contain mean the ID branch cannot match: skip it.
  if (id !== '' && idNumberSchema.safeParse(id).success) {
    out.push({ column: 'id_number', index: ID_INDEX, prefix: id });
  }
  return out;
}

/** A random row read costs about this many sequential index entries (measured at 1M people). */
const RANDOM_READ_COST = { sqlite: 8, mysql: 40 } as const;

/**
 * Name order within at most MAX_ORDERED_SPACES spaces and nothing that needs the person's row
 * (`enabled`, an ID-number branch): each space's name-ordered access rows have it all.
 */
function bySpaceIndex(s: PeopleSearch, b: Branch | undefined): boolean {
  return (
    !!s.spaceIds &&
    s.spaceIds.length <= MAX_ORDERED_SPACES &&
    s.tuning?.spaceIndex !== false &&
    s.enabled === undefined &&
    (s.sort === 'name' || s.sort === '-name') &&
    (!b || b.column === 'name_key')
  );
}

/** People in the table, roughly and cheaply (an upper bound of one organization's). */
async function estimatedPeople(ctx: Pick<AppContext, 'db'>): Promise<number> {
  const sql =
    ctx.db.dialect === 'sqlite'
      ? // Rowids only grow: the largest is at least the row count, read from the b-tree's end.
        'SELECT MAX(rowid) AS n FROM people'
      : "SELECT TABLE_ROWS AS n FROM information_schema.TABLES WHERE TABLE_SCHEMA = DATABASE() AND TABLE_NAME = 'people'";
  return (await scalar(ctx, sql, new Params())) || 1;
}

/** The organization's id when there is exactly one, else null. */
async function onlyOrganization(ctx: Pick<AppContext, 'db'>): Promise<string | null> {
  const rows = await ctx.db.sequelize.query<{ id: string }>(
    'SELECT id FROM organizations ORDER BY id LIMIT 2',
    { type: QueryTypes.SELECT },
  );
  return rows.length === 1 ? rows[0]!.id : null;
}

async function scalar(ctx: Pick<AppContext, 'db'>, sql: string, p: Params): Promise<number> {
  const [row] = await ctx.db.sequelize.query<{ n: number | string }>(sql, {
    bind: p.values,
    type: QueryTypes.SELECT,
  });
  return Number(row?.n ?? 0);
}

/** Finds a page of people (ids in order) and how many match, capped at COUNT_CAP. */
export async function searchPeople(
  ctx: Pick<AppContext, 'db'>,
  s: PeopleSearch,
): Promise<PeoplePage> {
  const empty = { ids: [], total: 0, totalCapped: false };
  // Across organizations no index leads with the search's columns (MariaDB has no skip scan:
  // a full scan per search); with a single organization, "all of them" is that one.
  if (s.organizationId === null) s = { ...s, organizationId: await onlyOrganization(ctx) };
  let branches = branchesOf(s.q);
  if (branches?.length === 0 || s.spaceIds?.length === 0) return empty;
  const sql = new SearchSql(ctx.db.dialect, s);
  const sort = SORTS[s.sort];
  const lookup = s.tuning?.lookup ?? LOOKUP;
  const cap = s.tuning?.countCap ?? COUNT_CAP;
  const capped = `LIMIT ${cap + 1}`;
  const count = (inner: string, p: Params) =>
    scalar(ctx, `SELECT COUNT(*) AS n FROM (${inner} ${capped}) x`, p);

  const offset = (s.page - 1) * s.pageSize;
  if (!branches && bySpaceIndex(s, undefined)) {
    // A plain page of spaces: the page needs no count to plan, so both run at once.
    const p = new Params();
    const pageSql = sql.spaceOrdered(undefined, s.sort === '-name', s.pageSize, offset, p);
    const cp = new Params();
    const [rows, n] = await Promise.all([
      ctx.db.sequelize.query<{ id: string }>(pageSql, { bind: p.values, type: QueryTypes.SELECT }),
      count(sql.membersSql(cp), cp),
    ]);
    // Everyone with access to a space belongs to the space's organization.
    return { ids: rows.map((r) => r.id), total: Math.min(n, cap), totalCapped: n > cap };
  }

  // Sizes to plan with, each at most cap + 1 sequential index entries.
  let members = Infinity;
  if (s.spaceIds) {
    const p = new Params();
    members = await count(sql.membersSql(p), p);
  }
  const sizes = new Map<Branch, number>();
  const bare = new SearchSql(ctx.db.dialect, { organizationId: s.organizationId });
  for (const b of branches ?? []) {
    const p = new Params();
    const plan: Plan = { kind: 'walk', index: b.index, space: 'none', branch: 'filter' };
    sizes.set(b, await count(bare.select(b, plan, p, '', '1 AS one'), p));
  }
  if (branches) {
    branches = branches.filter((b) => sizes.get(b)! > 0);
    if (branches.length === 0 || members === 0) return empty;
  }

  const spaceMode = members <= cap ? 'hash' : 'probe';
  // Deep pages of a mid-sized space: walking the name index to row offset+pageSize of the
  // space reads about (offset+pageSize) × people/members entries; looking every member up
  // costs `members` random reads. Compare, with the table's size as an upper bound of people.
  let preferMembers = false;
  if (s.spaceIds && members <= cap && members > lookup && sort.index && !s.tuning) {
    const people = await estimatedPeople(ctx);
    const walk = ((offset + s.pageSize) * people) / members + members;
    preferMembers = members * RANDOM_READ_COST[ctx.db.dialect] < walk;
  }
  const tableScan: Plan = { kind: 'walk', index: TABLE_SCAN, space: 'none', branch: 'filter' };
  /** Reads a small candidate set row by row, if there is one. */
  const fromSmallSet = (b: Branch | undefined, limit: number): Plan | undefined => {
    const size = b ? sizes.get(b)! : Infinity;
    if (s.spaceIds && members <= limit && members <= size) return { kind: 'members' };
    if (b && size <= limit)
      return { kind: 'walk', index: b.index, space: spaceMode, branch: 'filter' };
    return undefined;
  };
  const pagePlan = (b: Branch | undefined): PagePlan => {
    if (bySpaceIndex(s, b)) return { kind: 'spaceOrder' };
    const small = fromSmallSet(b, lookup);
    if (small) return small;
    if (preferMembers && (!b || members <= sizes.get(b)!)) return { kind: 'members' };
    // Disabled people are few and `enabled` is in no index: walking the name index would read
    // every row at random; a table scan reads them in order, then sorts the few that match.
    if (s.enabled === false && !b && !s.spaceIds) return tableScan;
    if (sort.index) {
      const branch = !b || b.index === sort.index || sizes.get(b)! > cap ? 'filter' : 'hash';
      return { kind: 'walk', index: sort.index, space: s.spaceIds ? spaceMode : 'none', branch };
    }
    // No index gives this order: sort the smallest candidate set, whatever its size.
    return fromSmallSet(b, Infinity) ?? tableScan;
  };
  const countPlan = (b: Branch | undefined): Plan => {
    const small = fromSmallSet(b, lookup);
    if (small) return small;
    if (b && (sizes.get(b)! <= cap || !s.spaceIds || members > cap)) {
      return {
        kind: 'walk',
        index: b.index,
        space: s.spaceIds ? spaceMode : 'none',
        branch: 'filter',
      };
    }
    if (s.spaceIds) return { kind: 'members' };
    // `enabled` needs the row: count along the table, which stops after cap + 1 matches.
    return s.enabled === undefined
      ? { kind: 'walk', index: NAME_INDEX, space: 'none', branch: 'filter' }
      : tableScan;
  };

  const list: (Branch | undefined)[] = branches ?? [undefined];
  const p = new Params();
  const pageOf = (b: Branch | undefined, limit: number, skip: number) => {
    const plan = pagePlan(b);
    if (plan.kind === 'spaceOrder') return sql.spaceOrdered(b, s.sort === '-name', limit, skip, p);
    const window = `LIMIT ${limit}${skip > 0 ? ` OFFSET ${skip}` : ''}`;
    return sql.select(b, plan, p, `ORDER BY ${sort.order} ${window}`);
  };
  const pageSql =
    list.length === 1
      ? pageOf(list[0], s.pageSize, offset)
      : // Each branch yields its first offset+pageSize; the database orders the union, so the
        // merge uses the database's own collation.
        sql.union(
          list.map((b) => pageOf(b, offset + s.pageSize, 0)),
          sort.order,
          `LIMIT ${s.pageSize} OFFSET ${offset}`,
        );
  const rows = await ctx.db.sequelize.query<{ id: string }>(pageSql, {
    bind: p.values,
    type: QueryTypes.SELECT,
  });

  const window = s.tuning?.window ?? BOUNDED_WINDOW;
  const counted = await countMatches(ctx, sql, s, list, countPlan, {
    members,
    sizes,
    cap,
    lookup,
    window,
  });
  return { ids: rows.map((r) => r.id), ...counted };
}

interface Known {
  members: number;
  sizes: Map<Branch, number>;
  cap: number;
  lookup: number;
  window: number;
}

/**
 * `total` and `totalCapped`. Exact up to the cap, except where a space and a broad `q` are
 * both large: counting their intersection exactly would walk one of them whole, so the first
 * BOUNDED_WINDOW rows of the `q` range are checked and the answer is a lower bound
 * (`totalCapped: true`) unless the range ended inside the window.
 */
async function countMatches(
  ctx: Pick<AppContext, 'db'>,
  sql: SearchSql,
  s: PeopleSearch,
  list: (Branch | undefined)[],
  countPlan: (b: Branch | undefined) => Plan,
  k: Known,
): Promise<{ total: number; totalCapped: boolean }> {
  const result = (n: number, lowerBound = false) => ({
    total: Math.min(n, k.cap),
    totalCapped: lowerBound || n > k.cap,
  });
  const plain = s.enabled === undefined;
  const only = list.length === 1 ? list[0] : undefined;
  // Nothing filters beyond the planning counts: they are the answer.
  if (list.length === 1 && plain && only && !s.spaceIds) return result(k.sizes.get(only)!);
  // Everyone with access to a space belongs to the space's organization.
  if (list.length === 1 && plain && !only && s.spaceIds) return result(k.members);
  if (list.some((b) => b && !s.spaceIds && plain && k.sizes.get(b)! > k.cap)) {
    return result(k.cap + 1);
  }
  const broad = (b: Branch | undefined): b is Branch =>
    !!b && !!s.spaceIds && plain && k.sizes.get(b)! > k.cap && k.members > k.lookup;
  if (list.some(broad)) {
    let best = 0;
    let complete = list.length === 1;
    for (const b of list.filter(broad)) {
      const p = new Params();
      const [row] = await ctx.db.sequelize.query<{ scanned: number | string; n: number | string }>(
        sql.boundedCount(b, k.window, p),
        { bind: p.values, type: QueryTypes.SELECT },
      );
      best = Math.max(best, Number(row?.n ?? 0));
      if (Number(row?.scanned ?? 0) >= k.window) complete = false;
    }
    return result(best, !complete);
  }
  const p = new Params();
  const capped = `LIMIT ${k.cap + 1}`;
  const parts = list.map(
    (b, i) => `SELECT id FROM (${sql.select(b, countPlan(b), p, capped)}) c${i}`,
  );
  return result(await scalar(ctx, `SELECT COUNT(*) AS n FROM (${parts.join(' UNION ')}) u`, p));
}
