import { AccessDeniedError, ConnectionError } from 'sequelize';

export type DbFailure = 'access_denied' | 'unknown_database' | 'unreachable' | 'other';

interface DriverError {
  code?: string;
  errno?: number;
}

/** Tells a wrong password (fatal) from an unreachable server (retry) and a missing database. */
export function classifyDbError(err: unknown): DbFailure {
  const parent = (err as { parent?: DriverError; original?: DriverError }).parent ?? {};
  if (err instanceof AccessDeniedError || parent.code === 'ER_ACCESS_DENIED_ERROR') {
    return 'access_denied';
  }
  if (parent.code === 'ER_BAD_DB_ERROR' || parent.errno === 1049) return 'unknown_database';
  if (err instanceof ConnectionError) return 'unreachable';
  return 'other';
}

export class FatalDatabaseError extends Error {}
