import { randomBytes } from 'node:crypto';

/**
 * Time-ordered ids (UUID version 7, RFC 9562: 48 bits of Unix milliseconds, then random bits)
 * for tables that take rows by the hundred thousand (sync_tasks: a site's new devices are
 * 2,000,000 rows). Random (version 4) ids scatter every insert over the whole primary key
 * index; once the index outgrew the cache, each row of a plan cost a page read, and plan
 * statements grew slower as the table grew. Ids of the same millisecond land side by side at the
 * end of the index, so a plan's cost per task stays flat. On MySQL the primary key is the table
 * itself (InnoDB), so the rows are appended too.
 */
export function orderedUuid(ms: number = Date.now()): string {
  const r = randomBytes(10).toString('hex');
  const variant = '89ab'[randomBytes(1)[0]! & 3]!;
  return `${timePart(ms)}${r.slice(0, 3)}-${variant}${r.slice(3, 6)}-${r.slice(6, 18)}`;
}

/**
 * The same id computed by the database for each row of an INSERT … SELECT, for rows written
 * at `ms`. `hex` is a column of 32 random hex digits the statement provides per row
 * (`randomHexColumn`).
 */
export function orderedUuidSql(dialect: string, ms: number, hex = 'h'): string {
  const head = `'${timePart(ms)}'`;
  return dialect === 'mysql'
    ? `LOWER(CONCAT(${head}, SUBSTR(${hex}, 1, 3), '-', SUBSTR('89ab', 1 + FLOOR(RAND() * 4), 1),
        SUBSTR(${hex}, 4, 3), '-', SUBSTR(${hex}, 7, 12)))`
    : `lower(${head} || substr(${hex}, 1, 3) || '-' || substr('89ab', 1 + (abs(random()) % 4), 1)
        || substr(${hex}, 4, 3) || '-' || substr(${hex}, 7, 12))`;
}

/** 32 random hex digits per row, for orderedUuidSql. */
export function randomHexColumn(dialect: string): string {
  // MD5 of a fresh UUID(): random enough to keep ids apart, on MySQL 8 and every MariaDB.
  return dialect === 'mysql' ? 'MD5(UUID())' : 'hex(randomblob(16))';
}

/** The id's first 15 characters: 48 bits of milliseconds, then the version (`xxxxxxxx-xxxx-7`). */
function timePart(ms: number): string {
  const time = Math.max(0, Math.floor(ms)).toString(16).padStart(12, '0').slice(-12);
  return `${time.slice(0, 8)}-${time.slice(8)}-7`;
}
