import { QueryTypes } from 'sequelize';
import type { AdministratorRow, Models, SessionRow } from '../platform/db/models.js';
import { columnsOf, instanceFrom } from '../platform/db/raw-rows.js';

/** A session as every signed-in request reads it: with its administrator and 2FA enrolment. */
export interface SessionRead {
  session: SessionRow;
  /** Null when the administrator is gone. */
  admin: AdministratorRow | null;
  /** The administrator has confirmed a second factor. */
  twoFactorEnabled: boolean;
}

type Deps = { models: Pick<Models, 'Session' | 'Administrator' | 'AdministratorTotp'> };

/**
 * One statement for what every session request needs (the session, its administrator, whether
 * two-factor sign-in is set up), where model reads sent one per table — and on SQLite another
 * per table for the column types (db/raw-rows.ts).
 */
export async function readSession(deps: Deps, sessionId: string): Promise<SessionRead | null> {
  const { Session, Administrator, AdministratorTotp } = deps.models;
  const sequelize = Session.sequelize!;
  const rows = await sequelize.query<Record<string, unknown>>(
    `SELECT ${columnsOf(Session, 's', 's_')}, ${columnsOf(Administrator, 'a', 'a_')},
        t.enabled_at AS t_enabled_at
      FROM ${Session.getTableName() as string} s
      LEFT JOIN ${Administrator.getTableName() as string} a ON a.id = s.administrator_id
      LEFT JOIN ${AdministratorTotp.getTableName() as string} t ON t.administrator_id = s.administrator_id
      WHERE s.id = ?`,
    { replacements: [sessionId], type: QueryTypes.SELECT },
  );
  const row = rows[0];
  if (!row) return null;
  return {
    session: instanceFrom(Session, row, 's_')!,
    admin: instanceFrom(Administrator, row, 'a_'),
    twoFactorEnabled: row.t_enabled_at !== null && row.t_enabled_at !== undefined,
  };
}
