// MySQL 8 grammar check of the SQL the server sends (docs/testing.md, "MySQL 8 grammar").
// Only MariaDB runs on our machines, so a statement MariaDB accepts but MySQL 8 refuses
// (RETURNING, sequences, ADD COLUMN IF NOT EXISTS, ...) would pass every suite. Each statement
// sent to the MySQL dialect during a jest run is recorded (sql-capture.ts) and parsed here with
// node-sql-parser's MySQL grammar; globalTeardown fails the run on one it cannot parse.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import sqlParser from 'node-sql-parser/build/mysql.js';

const parser = new sqlParser.Parser();

/**
 * Statements MySQL 8 documents but the parser's grammar lacks; each is sent by Sequelize itself
 * (transactions, isolation levels, schema reads) or are the database's own creation, never
 * business SQL. Anchored, so
 * only that whole statement form is let through.
 */
const OUTSIDE_THE_PARSER = [
  /^SET (SESSION )?TRANSACTION ISOLATION LEVEL (READ UNCOMMITTED|READ COMMITTED|REPEATABLE READ|SERIALIZABLE);?$/i,
  /^(SAVEPOINT|RELEASE SAVEPOINT|ROLLBACK TO SAVEPOINT) `?[\w-]+`?;?$/i,
  /^SHOW (FULL )?(INDEX|INDEXES|KEYS|COLUMNS|FIELDS) FROM `?[\w]+`?(\.`?[\w]+`?)?;?$/i,
  /^SHOW (FULL )?TABLES;?$/i,
  /^SELECT VERSION\(\) as `version`;?$/i,
  /^(CREATE|DROP) DATABASE (IF (NOT )?EXISTS )?`\w+`( (DEFAULT )?CHARACTER SET \w+)?( COLLATE \w+)?;?$/i,
];

/**
 * MySQL 8 syntax the parser's grammar lacks, rewritten to an equivalent it knows before parsing,
 * so the rest of the statement is still checked: index hints (FORCE/USE/IGNORE INDEX),
 * SELECT STRAIGHT_JOIN, DEFAULT as an inserted value, DOUBLE PRECISION.
 */
const PARSER_GAPS = [
  [/\s(?:FORCE|USE|IGNORE) (?:INDEX|KEY) \([^)]*\)/gi, ''],
  [/\bSELECT STRAIGHT_JOIN\b/gi, 'SELECT'],
  [/(\bVALUES\s*\(|,)\s*DEFAULT\s*(?=[,)])/gi, '$1 NULL'],
  [/\bDOUBLE PRECISION\b/gi, 'DOUBLE'],
];

/** The same statement with other values: literals, placeholders and value lists collapsed. */
export function sqlShape(sql) {
  return sql
    .replace(/'(?:[^'\\]|\\.|'')*'/g, "''")
    .replace(/(?<![\w.`$])-?\d+(?:\.\d+)?(?:e[+-]?\d+)?(?![\w`])/gi, '0')
    .replace(
      /\(\s*(?:''|0|\?|NULL)(?:\s*,\s*(?:''|0|\?|NULL))*\s*\)(?:\s*,\s*\(\s*(?:''|0|\?|NULL)(?:\s*,\s*(?:''|0|\?|NULL))*\s*\))*/gi,
      '(…)',
    )
    .replace(/\s+/g, ' ')
    .trim();
}

/** Why MySQL 8's grammar refuses the statement, or null when it parses. */
export function mysql8SyntaxError(sql) {
  const text = sql.trim();
  if (OUTSIDE_THE_PARSER.some((re) => re.test(text))) return null;
  const known = PARSER_GAPS.reduce((sqlText, [re, to]) => sqlText.replace(re, to), text);
  try {
    parser.astify(known, { database: 'MySQL' });
    return null;
  } catch (err) {
    return err instanceof Error ? err.message.slice(0, 300) : String(err);
  }
}

/** Reads every capture file of a directory (one JSON string a line); distinct statements. */
export function readCaptured(dir) {
  const all = new Set();
  for (const name of readdirSync(dir)) {
    if (!name.endsWith('.jsonl')) continue;
    for (const line of readFileSync(join(dir, name), 'utf8').split('\n')) {
      if (line) all.add(JSON.parse(line));
    }
  }
  return [...all];
}
