import { QueryTypes, UniqueConstraintError, type Sequelize } from 'sequelize';
import { fromSqlDate, sqlDate } from '../platform/db/sql-dates.js';

export interface StoredReport {
  sha256: string;
  organizationId: string;
  recordedBy: string;
  recordedAt: Date;
  title: string;
  layers: number;
  passed: number;
  report: string;
}

interface Row {
  sha256: string;
  organization_id: string;
  recorded_by: string;
  recorded_at: unknown;
  title: string;
  layers: number | string;
  passed: number | string;
  report: string;
}

const toStored = (r: Row): StoredReport => ({
  sha256: r.sha256,
  organizationId: r.organization_id,
  recordedBy: r.recorded_by,
  recordedAt: fromSqlDate(r.recorded_at)!,
  title: r.title,
  layers: Number(r.layers),
  passed: Number(r.passed),
  report: r.report,
});

/** Handover reports by digest: the first one kept stands; a second upload changes nothing. */
export class AcceptanceReportStore {
  constructor(private readonly sequelize: Sequelize) {}

  async find(sha256: string): Promise<StoredReport | null> {
    const rows = await this.sequelize.query<Row>(
      'SELECT * FROM acceptance_reports WHERE sha256 = :sha256',
      { type: QueryTypes.SELECT, replacements: { sha256 } },
    );
    return rows[0] ? toStored(rows[0]) : null;
  }

  /** Keeps the report unless its digest is already kept; says which record stands. */
  async keep(report: StoredReport): Promise<{ created: boolean; record: StoredReport }> {
    let created = true;
    try {
      await this.sequelize.query(
        `INSERT INTO acceptance_reports
           (sha256, organization_id, recorded_by, recorded_at, title, layers, passed, report)
         VALUES (:sha256, :organizationId, :recordedBy, :recordedAt, :title, :layers, :passed, :report)`,
        {
          type: QueryTypes.INSERT,
          replacements: { ...report, recordedAt: sqlDate(this.sequelize, report.recordedAt) },
        },
      );
    } catch (err) {
      // The same digest sent again (or twice at once): the first record stands.
      if (!(err instanceof UniqueConstraintError)) throw err;
      created = false;
    }
    const record = await this.find(report.sha256);
    if (!record) throw new Error('the report was neither kept nor found');
    return { created, record };
  }
}
