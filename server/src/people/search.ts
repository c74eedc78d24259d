import { QueryTypes } from 'sequelize';
import { idNumber as idNumberSchema, type PeopleQuery } from '@svc/shared';
import type { AppContext } from '../context.js';
import { canonicalIdNumber, likePrefix, LIKE_ESCAPE, nameKey, prefixUpperBound } from './keys.js';

/**
 * People search at a million rows, on SQLite and MySQL/MariaDB, without trusting either query
 * planner: every page is read along an index chosen here from cheap, capped counts.
 *
 * - `q` is two branches, a name prefix (index organization_id, name_key, id) OR an ID-number
 *   prefix (unique index organization_id, id_number); both are index ranges. On SQLite the
 *   range is `key >= prefix AND key < successor(prefix)` (BINARY compares code points); on
 *   MySQL it is `LIKE 'prefix%'` (escaped), which the optimizer turns into a range that is
 *   correct under utf8mb4_unicode_ci — a `< prefix + U+FFFF` bound would not be — plus the
 *   same LIKE under utf8mb4_bin, so both databases answer exact code-point prefixes.
 * - A branch is read along the sort's index when it can be (no sort needed), along its own
 *   range when that range is small (≤ SMALL rows to sort), or along a space's member list
 *   when the space is small. A large space is an EXISTS probe on person_spaces' primary key.
 * - `total` counts at most COUNT_CAP rows (driven by the smallest capped count, so a count
 *   never walks a million rows); beyond that the answer says `totalCapped: true`.
 */

export const COUNT_CAP = 10_000;
/** A candidate set this small is cheaper to sort than to walk another index for. */
const SMALL = 5_000;

type Dialect = 'sqlite' | 'mysql';
type Sort = PeopleQuery['sort'];

const NAME_INDEX = 'people_org_name_key';
const ID_INDEX = 'people_org_id_number';

const SORTS: Record<Sort, { order: string; index?: string }> = {
  name: { order: 'p.name_key ASC, p.id ASC', index: NAME_INDEX },
  '-name': { order: 'p.name_key DESC, p.id DESC', index: NAME_INDEX },
  idNumber: { order: 'p.id_number ASC, p.id ASC', index: ID_INDEX },
  '-idNumber': { order: 'p.id_number DESC, p.id DESC', index: ID_INDEX },
  // No index on the times (schema change proposed in the report): these sort the candidates.
  createdAt: { order: 'p.created_at ASC, p.id ASC' },
  '-createdAt': { order: 'p.created_at DESC, p.id DESC' },
  updatedAt: { order: 'p.updated_at ASC, p.id ASC' },
  '-updatedAt': { order: 'p.updated_at DESC, p.id DESC' },
};

export interface PeopleSearch {
  /** null: every organization (superadmin). */
  organizationId: string | null;
  q?: string | undefined;
  /** People with direct access to any of these spaces (the caller expands descendants). */
  spaceIds?: string[] | undefined;
  enabled?: boolean | undefined;
  sort: Sort;
  page: number;
  pageSize: number;
  /** Tests lower these to drive every plan with a few rows. */
  tuning?: { small?: number; countCap?: number };
}

export interface PeoplePage {
  /** Person ids of the page, in order. */
  ids: string[];
  total: number;
  totalCapped: boolean;
}

interface Branch {
  column: 'name_key' | 'id_number';
  index: string;
  prefix: string;
}

/** The branches `q` stands for; [] when nothing can match it (or no q). */
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

/** Bind parameters ($1, $2, …) collected while the SQL text is built. */
class Params {
  readonly values: unknown[] = [];
  add(value: unknown): string {
    this.values.push(value);
    return `$${this.values.length}`;
  }
  list(values: readonly unknown[]): string {
    return values.map((v) => this.add(v)).join(', ');
  }
}

type Driver = { kind: 'members' } | { kind: 'index'; index: string | undefined };

class Query {
  constructor(
    private readonly dialect: Dialect,
    private readonly s: PeopleSearch,
  ) {}

  private branchSql(b: Branch, p: Params): string {
    if (this.dialect === 'mysql') {
      // The collated LIKE is the index range; utf8mb4_unicode_ci also equates characters the
      // keys keep apart (every emoji weighs the same), so a binary LIKE then keeps exact prefixes.
      const pattern = likePrefix(b.prefix);
      const escape = `ESCAPE '${LIKE_ESCAPE}'`;
      return (
        `p.${b.column} LIKE ${p.add(pattern)} ${escape} AND ` +
        `p.${b.column} COLLATE utf8mb4_bin LIKE ${p.add(pattern)} ${escape}`
      );
    }
    const upper = prefixUpperBound(b.prefix);
    return (
      `p.${b.column} >= ${p.add(b.prefix)}` +
      (upper === undefined ? '' : ` AND p.${b.column} < ${p.add(upper)}`)
    );
  }

  membersSql(p: Params): string {
    const ids = this.s.spaceIds!;
    return ids.length === 1
      ? `SELECT person_id FROM person_spaces WHERE space_id = ${p.add(ids[0])}`
      : `SELECT DISTINCT person_id FROM person_spaces WHERE space_id IN (${p.list(ids)})`;
  }

  private existsSql(p: Params): string {
    const ids = this.s.spaceIds!;
    // LIMIT keeps MariaDB from turning the probe into a semi-join it might drive the page from.
    return (
      `EXISTS (SELECT 1 FROM person_spaces ps WHERE ps.person_id = p.id AND ps.space_id ` +
      `${ids.length === 1 ? `= ${p.add(ids[0])}` : `IN (${p.list(ids)})`} LIMIT 1)`
    );
  }

  /** `SELECT <column> FROM … WHERE …` for one branch read along `driver`. */
  select(
    branch: Branch | undefined,
    driver: Driver,
    p: Params,
    tail: string,
    column = 'p.id',
  ): string {
    const mysql = this.dialect === 'mysql';
    let from: string;
    const where: string[] = [];
    let straight = '';
    if (driver.kind === 'members') {
      from = mysql
        ? `(${this.membersSql(p)}) m JOIN people p ON p.id = m.person_id`
        : `(${this.membersSql(p)}) m CROSS JOIN people p ON p.id = m.person_id`;
      if (mysql) straight = 'STRAIGHT_JOIN ';
    } else {
      const hint =
        driver.index && this.s.organizationId
          ? mysql
            ? ` FORCE INDEX (${driver.index})`
            : ` INDEXED BY ${driver.index}`
          : '';
      from = `people p${hint}`;
    }
    if (this.s.organizationId) where.push(`p.organization_id = ${p.add(this.s.organizationId)}`);
    if (branch) where.push(this.branchSql(branch, p));
    if (this.s.enabled !== undefined) where.push(`p.enabled = ${p.add(this.s.enabled ? 1 : 0)}`);
    if (this.s.spaceIds && driver.kind !== 'members') where.push(this.existsSql(p));
    const whereSql = where.length > 0 ? ` WHERE ${where.join(' AND ')}` : '';
    return `SELECT ${straight}${column} FROM ${from}${whereSql} ${tail}`;
  }
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
  const branches = branchesOf(s.q);
  if (branches?.length === 0 || s.spaceIds?.length === 0) {
    return { ids: [], total: 0, totalCapped: false };
  }
  const query = new Query(ctx.db.dialect, s);
  const sort = SORTS[s.sort];
  const small = s.tuning?.small ?? SMALL;
  const cap = s.tuning?.countCap ?? COUNT_CAP;
  const capped = `LIMIT ${cap + 1}`;

  // Cheap sizes to plan with: each walks at most COUNT_CAP + 1 index entries.
  let members = Infinity;
  if (s.spaceIds) {
    const p = new Params();
    const m = `${query.membersSql(p)} ${capped}`;
    members = await scalar(ctx, `SELECT COUNT(*) AS n FROM (${m}) x`, p);
  }
  const sizes = new Map<Branch, number>();
  for (const b of branches ?? []) {
    const p = new Params();
    const probe = new Query(ctx.db.dialect, { ...s, spaceIds: undefined, enabled: undefined });
    const sql = probe.select(b, { kind: 'index', index: b.index }, p, capped, '1 AS one');
    sizes.set(b, await scalar(ctx, `SELECT COUNT(*) AS n FROM (${sql}) x`, p));
  }

  const list: (Branch | undefined)[] = branches ?? [undefined];
  const pageDriver = (b: Branch | undefined): Driver => {
    const size = b ? sizes.get(b)! : Infinity;
    if (members <= small) return { kind: 'members' };
    if (sort.index && (!b || b.index === sort.index)) return { kind: 'index', index: sort.index };
    if (b && size <= small) return { kind: 'index', index: b.index };
    if (sort.index) return { kind: 'index', index: sort.index };
    if (b && size <= members) return { kind: 'index', index: b.index };
    return s.spaceIds ? { kind: 'members' } : { kind: 'index', index: undefined };
  };
  const countDriver = (b: Branch | undefined): Driver => {
    const size = b ? sizes.get(b)! : Infinity;
    if (members <= size && s.spaceIds) return { kind: 'members' };
    return { kind: 'index', index: b?.index ?? NAME_INDEX };
  };

  const offset = (s.page - 1) * s.pageSize;
  const pageParams = new Params();
  let pageSql: string;
  if (list.length === 1) {
    pageSql = query.select(
      list[0],
      pageDriver(list[0]),
      pageParams,
      `ORDER BY ${sort.order} LIMIT ${s.pageSize} OFFSET ${offset}`,
    );
  } else {
    // Each branch yields its first offset+pageSize in order; the database orders the union, so
    // the merge uses the database's own collation.
    const parts = list.map(
      (b, i) =>
        `SELECT id FROM (${query.select(b, pageDriver(b), pageParams, `ORDER BY ${sort.order} LIMIT ${offset + s.pageSize}`)}) b${i}`,
    );
    const join = ctx.db.dialect === 'mysql' ? 'JOIN' : 'CROSS JOIN';
    const straight = ctx.db.dialect === 'mysql' ? 'STRAIGHT_JOIN ' : '';
    pageSql =
      `SELECT ${straight}p.id FROM (${parts.join(' UNION ')}) u ${join} people p ON p.id = u.id ` +
      `ORDER BY ${sort.order} LIMIT ${s.pageSize} OFFSET ${offset}`;
  }
  const rows = await ctx.db.sequelize.query<{ id: string }>(pageSql, {
    bind: pageParams.values,
    type: QueryTypes.SELECT,
  });

  const total = await countOf(ctx, query, list, countDriver, { members, sizes }, s, capped);
  return {
    ids: rows.map((r) => r.id),
    total: Math.min(total, cap),
    totalCapped: total > cap,
  };
}

async function countOf(
  ctx: Pick<AppContext, 'db'>,
  query: Query,
  list: (Branch | undefined)[],
  driver: (b: Branch | undefined) => Driver,
  known: { members: number; sizes: Map<Branch, number> },
  s: PeopleSearch,
  capped: string,
): Promise<number> {
  // One branch read along its own driver with nothing else to check: its size is the count.
  if (list.length === 1 && s.enabled === undefined) {
    const b = list[0];
    if (b && !s.spaceIds) return known.sizes.get(b)!;
    // Everyone with access to a space belongs to the space's organization.
    if (!b && s.spaceIds) return known.members;
  }
  const p = new Params();
  const parts = list.map(
    (b, i) => `SELECT id FROM (${query.select(b, driver(b), p, capped)}) c${i}`,
  );
  return scalar(ctx, `SELECT COUNT(*) AS n FROM (${parts.join(' UNION ')}) u`, p);
}
