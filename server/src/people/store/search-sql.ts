import type { PeopleQuery } from '@svc/shared';
import { LIKE_ESCAPE, likePrefix, prefixUpperBound } from '../keys.js';

/**
 * The SQL text of people searches, for both databases. Only constants and `$n` bind
 * placeholders are ever spliced in: every value typed by a user travels as a bind parameter.
 */

export type Dialect = 'sqlite' | 'mysql';

export const NAME_INDEX = 'people_org_name_key';
export const ID_INDEX = 'people_org_id_number';
/** person_spaces (space_id, name_key, person_id): a space's people in name order. */
export const SPACE_NAME_INDEX = 'person_spaces_space_name';
/** Not an index: read the whole table in storage order. */
export const TABLE_SCAN = '(table)';

export const SORTS: Record<PeopleQuery['sort'], { order: string; index?: string }> = {
  name: { order: 'p.name_key ASC, p.id ASC', index: NAME_INDEX },
  '-name': { order: 'p.name_key DESC, p.id DESC', index: NAME_INDEX },
  // ID numbers are unique in an organization: no tie-breaker, so the unique index orders alone.
  idNumber: { order: 'p.id_number ASC', index: ID_INDEX },
  '-idNumber': { order: 'p.id_number DESC', index: ID_INDEX },
  // No index on the times (schema change proposed in the report): these sort the candidates.
  createdAt: { order: 'p.created_at ASC, p.id ASC' },
  '-createdAt': { order: 'p.created_at DESC, p.id DESC' },
  updatedAt: { order: 'p.updated_at ASC, p.id ASC' },
  '-updatedAt': { order: 'p.updated_at DESC, p.id DESC' },
};

/** One reading of `q`: a prefix of people.name_key or of people.id_number. */
export interface Branch {
  column: 'name_key' | 'id_number';
  index: string;
  prefix: string;
}

export interface Filters {
  organizationId: string | null;
  spaceIds?: string[] | undefined;
  enabled?: boolean | undefined;
}

/**
 * How one branch is read.
 * - `members`: from the spaces' member list, each person looked up by primary key, then sorted.
 * - `walk`: along `index` (the sort's, or the branch's own range). The space filter and a
 *   branch on another index are either hashed sets (materialized once from their own index,
 *   then checked in memory) or per-row checks (`probe`s, `filter` conditions).
 */
export type Plan =
  | { kind: 'members' }
  | {
      kind: 'walk';
      index: string | undefined;
      space: 'none' | 'hash' | 'probe';
      branch: 'filter' | 'hash';
    };

/** Bind parameters ($1, $2, …) collected while the SQL text is built. */
export class Params {
  readonly values: unknown[] = [];
  add(value: unknown): string {
    this.values.push(value);
    return `$${this.values.length}`;
  }
  list(values: readonly unknown[]): string {
    return values.map((v) => this.add(v)).join(', ');
  }
}

export class SearchSql {
  constructor(
    readonly dialect: Dialect,
    private readonly f: Filters,
  ) {}

  private get mysql() {
    return this.dialect === 'mysql';
  }

  /** `people <alias>` forced onto `index` (only within one organization: its first column). */
  private people(alias: string, index: string | undefined): string {
    if (!index || !this.f.organizationId) return `people ${alias}`;
    if (index === TABLE_SCAN) {
      return this.mysql ? `people ${alias} FORCE INDEX (PRIMARY)` : `people ${alias} NOT INDEXED`;
    }
    return this.mysql
      ? `people ${alias} FORCE INDEX (${index})`
      : `people ${alias} INDEXED BY ${index}`;
  }

  private orgSql(alias: string, p: Params): string[] {
    return this.f.organizationId
      ? [`${alias}.organization_id = ${p.add(this.f.organizationId)}`]
      : [];
  }

  /** The prefix condition: an index range on either database. */
  branchSql(alias: string, b: Branch, p: Params): string {
    const col = `${alias}.${b.column}`;
    if (this.mysql) {
      // The collated LIKE is the index range; utf8mb4_unicode_ci also equates characters the
      // keys keep apart (every emoji weighs the same), so a binary LIKE then keeps exact prefixes.
      const pattern = likePrefix(b.prefix);
      const escape = `ESCAPE '${LIKE_ESCAPE}'`;
      return (
        `${col} LIKE ${p.add(pattern)} ${escape} AND ` +
        `${col} COLLATE utf8mb4_bin LIKE ${p.add(pattern)} ${escape}`
      );
    }
    const upper = prefixUpperBound(b.prefix);
    return `${col} >= ${p.add(b.prefix)}${upper === undefined ? '' : ` AND ${col} < ${p.add(upper)}`}`;
  }

  /** Distinct person ids with direct access to any of the spaces. */
  membersSql(p: Params): string {
    const ids = this.f.spaceIds!;
    // One space lists each person once (primary key): no DISTINCT, which on MariaDB builds a
    // temporary table (20 ms of a 7,500-member space's count instead of 6).
    return ids.length === 1
      ? `SELECT person_id FROM person_spaces WHERE space_id = ${p.add(ids[0])}`
      : `SELECT DISTINCT person_id FROM person_spaces WHERE space_id IN (${p.list(ids)})`;
  }

  /** Person ids of one branch, read from the branch's own index only (covering). */
  branchIdsSql(b: Branch, p: Params): string {
    const where = [...this.orgSql('b', p), this.branchSql('b', b, p)];
    return `SELECT DISTINCT b.id AS person_id FROM ${this.people('b', b.index)} WHERE ${where.join(' AND ')}`;
  }

  /** A per-row primary-key probe: does this person have access to one of the spaces? */
  private probeSql(p: Params): string {
    const ids = this.f.spaceIds!;
    const match = ids.length === 1 ? `= ${p.add(ids[0])}` : `IN (${p.list(ids)})`;
    // A scalar subquery, not EXISTS: MariaDB rewrites EXISTS into a semi-join and may then
    // materialize every member of every space before the first row (seconds at a million).
    return `(SELECT 1 FROM person_spaces ps WHERE ps.person_id = p.id AND ps.space_id ${match} LIMIT 1) IS NOT NULL`;
  }

  /** `SELECT <column> FROM … WHERE … <tail>` for one branch (or none) read along `plan`. */
  select(branch: Branch | undefined, plan: Plan, p: Params, tail: string, column = 'p.id'): string {
    const hashed: string[] = [];
    const where: string[] = [];
    let from: string;
    if (plan.kind === 'members') {
      // The member list drives: MySQL's STRAIGHT_JOIN and SQLite's CROSS JOIN keep that order.
      from = `(${this.membersSql(p)}) m ${this.mysql ? 'JOIN' : 'CROSS JOIN'} people p ON p.id = m.person_id`;
    } else {
      from = this.people('p', plan.index);
      if (this.f.spaceIds && plan.space === 'hash') hashed.push(this.membersSql(p));
      if (branch && plan.branch === 'hash') hashed.push(this.branchIdsSql(branch, p));
    }
    where.push(...this.orgSql('p', p));
    if (branch && (plan.kind === 'members' || plan.branch === 'filter')) {
      where.push(this.branchSql('p', branch, p));
    }
    if (this.f.enabled !== undefined) where.push(`p.enabled = ${p.add(this.f.enabled ? 1 : 0)}`);
    if (this.f.spaceIds && plan.kind === 'walk' && plan.space === 'probe') {
      where.push(this.probeSql(p));
    }
    if (this.mysql) {
      // Materialized derived tables joined after the walked index: MariaDB probes their keys.
      hashed.forEach((sql, i) => {
        from += ` JOIN (${sql}) h${i} ON h${i}.person_id = p.id`;
      });
    } else {
      // SQLite builds each IN (subquery) list once and checks it in memory per row.
      for (const sql of hashed) where.push(`p.id IN (${sql})`);
    }
    const straight =
      this.mysql && (plan.kind === 'members' || hashed.length > 0) ? 'STRAIGHT_JOIN ' : '';
    const whereSql = where.length > 0 ? ` WHERE ${where.join(' AND ')}` : '';
    return `SELECT ${straight}${column} FROM ${from}${whereSql} ${tail}`.trimEnd();
  }

  /**
   * How many of the first `window` rows of a branch's range have access to the spaces, and how
   * many rows were read: a count whose work is bounded even when both sets are large.
   */
  boundedCount(b: Branch, window: number, p: Params): string {
    const where = [...this.orgSql('p', p), this.branchSql('p', b, p)].join(' AND ');
    return (
      `SELECT COUNT(*) AS scanned, COUNT(h.person_id) AS n FROM ` +
      `(SELECT p.id FROM ${this.people('p', b.index)} WHERE ${where} LIMIT ${window}) w ` +
      `LEFT JOIN (${this.membersSql(p)}) h ON h.person_id = w.id`
    );
  }

  /**
   * Person ids (`id`) in name order (`desc`: reversed), rows offset … offset+limit, read from
   * the spaces' (space_id, name_key, person_id) index: at most offset+limit entries per space,
   * whatever the size of the space, then only the page's people by primary key. A person in
   * several of the spaces is one row (UNION): the global first n are among each space's first
   * n, since everyone ahead of a person in one space's list is ahead of them in the merged one.
   */
  spaceOrdered(b: Branch | undefined, desc: boolean, limit: number, offset: number, p: Params) {
    const dir = desc ? 'DESC' : 'ASC';
    const order = (a: string) => `${a}name_key ${dir}, ${a}person_id ${dir}`;
    const ps = this.mysql
      ? `person_spaces ps FORCE INDEX (${SPACE_NAME_INDEX})`
      : `person_spaces ps INDEXED BY ${SPACE_NAME_INDEX}`;
    const window = (n: number, skip: number) => `LIMIT ${n}${skip > 0 ? ` OFFSET ${skip}` : ''}`;
    const one = (spaceId: string, n: number, skip: number) => {
      const where = [`ps.space_id = ${p.add(spaceId)}`];
      if (b) where.push(this.branchSql('ps', b, p));
      return `SELECT ps.person_id, ps.name_key FROM ${ps} WHERE ${where.join(' AND ')} ORDER BY ${order('ps.')} ${window(n, skip)}`;
    };
    const ids = this.f.spaceIds!;
    const members =
      ids.length === 1
        ? one(ids[0]!, limit, offset)
        : `SELECT * FROM (${ids
            .map((id, i) => `SELECT * FROM (${one(id, offset + limit, 0)}) s${i}`)
            .join(' UNION ')}) u ORDER BY ${order('')} ${window(limit, offset)}`;
    const where = this.orgSql('p', p);
    const straight = this.mysql ? 'STRAIGHT_JOIN ' : '';
    const join = this.mysql ? 'JOIN' : 'CROSS JOIN';
    return (
      `SELECT ${straight}p.id FROM (${members}) m ${join} people p ON p.id = m.person_id` +
      `${where.length > 0 ? ` WHERE ${where.join(' AND ')}` : ''} ORDER BY ${order('m.')}`
    );
  }

  /** The union of several branch selects (ids), ordered by the database itself. */
  union(parts: string[], order: string, tail: string): string {
    const join = this.mysql ? 'JOIN' : 'CROSS JOIN';
    const straight = this.mysql ? 'STRAIGHT_JOIN ' : '';
    const union = parts.map((sql, i) => `SELECT id FROM (${sql}) b${i}`).join(' UNION ');
    return `SELECT ${straight}p.id FROM (${union}) u ${join} people p ON p.id = u.id ORDER BY ${order} ${tail}`;
  }
}
