import type { Model, ModelStatic } from 'sequelize';
import { fromSqlDate } from './sql-dates.js';

/**
 * Model instances from the rows of a raw statement: one statement can then read rows of several
 * tables (a join) where a model call would send one per table. On SQLite a model read also sends
 * `PRAGMA table_info` before every SELECT (Sequelize learns the column types that way), so a
 * request resolving its session with two model reads sent four statements. Columns are named by
 * the model's attributes, so a new column needs no edit here.
 */

/** `alias.column AS prefixcolumn, …` for every attribute of `model` (unquoted: see due.ts). */
export function columnsOf(model: ModelStatic<Model>, alias: string, prefix: string): string {
  return Object.values(model.getAttributes())
    .map((a) => `${alias}.${a.field} AS ${prefix}${a.field}`)
    .join(', ');
}

/** The value as the attribute's type reads it: drivers give SQLite's dates as text, booleans as 0/1. */
function typed(key: string, v: unknown): unknown {
  if (v === null || v === undefined) return null;
  switch (key) {
    case 'DATE':
      return fromSqlDate(v);
    case 'BOOLEAN':
      return typeof v === 'boolean' ? v : Number(v) !== 0;
    case 'INTEGER':
    case 'BIGINT':
    case 'FLOAT':
    case 'DOUBLE':
    case 'DECIMAL':
      return Number(v);
    default:
      return v;
  }
}

/**
 * The instance of `model` a model read would have given for the columns `prefix…` of `row`
 * (an existing row: `update` and `destroy` work on it), or null when its key is null (the
 * outer side of a LEFT JOIN found nothing).
 */
export function instanceFrom<M extends Model>(
  model: ModelStatic<M>,
  row: Record<string, unknown>,
  prefix: string,
): M | null {
  const values: Record<string, unknown> = {};
  for (const [name, a] of Object.entries(model.getAttributes())) {
    values[name] = typed((a.type as { key: string }).key, row[`${prefix}${a.field}`]);
  }
  if (values[model.primaryKeyAttribute] === null) return null;
  return model.build(values as M['_creationAttributes'], { isNewRecord: false, raw: true });
}
