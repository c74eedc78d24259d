import type { Sequelize } from 'sequelize';

/**
 * Dates in raw statements. A `Date` replacement loses its milliseconds on MySQL (Sequelize
 * formats it as a DATETIME without fraction), so a raw statement comparing a DATE(3) column
 * with "now" misses what happened earlier in the same second: pass sqlDate(…) instead.
 */

type Dialect = 'sqlite' | 'mysql';

function dialectOf(sequelize: Sequelize): Dialect {
  return sequelize.getDialect() === 'sqlite' ? 'sqlite' : 'mysql';
}

/**
 * A DATE(3) value as Sequelize writes it (timezone +00:00): SQLite keeps the offset in the
 * text, MySQL's DATETIME has none.
 */
export function sqlDate(sequelize: Sequelize, d: Date): string;
export function sqlDate(sequelize: Sequelize, d: Date | null): string | null;
export function sqlDate(sequelize: Sequelize, d: Date | null): string | null {
  if (d === null) return null;
  const iso = d.toISOString();
  const text = `${iso.slice(0, 10)} ${iso.slice(11, 23)}`;
  return dialectOf(sequelize) === 'sqlite' ? `${text} +00:00` : text;
}

/** A DATE(3) read by a raw query: a Date on MySQL, Sequelize's text on SQLite. */
export function fromSqlDate(v: unknown): Date | null {
  if (v === null || v === undefined) return null;
  if (v instanceof Date) return v;
  if (typeof v === 'string' || typeof v === 'number') return new Date(v);
  throw new TypeError(`not a stored date: ${typeof v}`);
}
