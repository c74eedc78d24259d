import { QueryTypes, type Sequelize, type Transaction } from 'sequelize';
import { sqlDate } from '../../platform/db/sql-dates.js';

/** What a profile gets of a photo: `variant` names its own file; neither: the original. */
export interface VariantRow {
  variant: string | null;
  problem: string | null;
}

/** The photo_variants table: one row per (source photo, profile key). */
export class VariantRows {
  constructor(private readonly sequelize: Sequelize) {}

  async find(source: string, profile: string): Promise<VariantRow | undefined> {
    const [row] = await this.sequelize.query<{
      variant_sha256: string | null;
      problem: string | null;
    }>(
      'SELECT variant_sha256, problem FROM photo_variants WHERE source_sha256 = ? AND profile = ?',
      { replacements: [source, profile], type: QueryTypes.SELECT },
    );
    return row && { variant: row.variant_sha256, problem: row.problem };
  }

  /**
   * Records what a profile gets; a row already there (another process made the same variant:
   * encoding is deterministic) is kept. A source removed meanwhile leaves no row.
   */
  async insert(
    source: string,
    profile: string,
    row: VariantRow,
    now: Date,
    transaction?: Transaction,
  ): Promise<void> {
    const ignore = this.sequelize.getDialect() === 'mysql' ? 'INSERT IGNORE' : 'INSERT OR IGNORE';
    await this.sequelize.query(
      `${ignore} INTO photo_variants (source_sha256, profile, variant_sha256, problem, created_at)
        SELECT ?, ?, ?, ?, ? FROM files WHERE sha256 = ?`,
      {
        replacements: [
          source,
          profile,
          row.variant,
          row.problem?.slice(0, 500) ?? null,
          sqlDate(this.sequelize, now),
          source,
        ],
        type: QueryTypes.INSERT,
        transaction,
      },
    );
  }

  /** Forgets a row whose variant file went missing, so it is made again. */
  async remove(source: string, profile: string): Promise<void> {
    await this.sequelize.query(
      'DELETE FROM photo_variants WHERE source_sha256 = ? AND profile = ?',
      { replacements: [source, profile], type: QueryTypes.DELETE },
    );
  }
}
