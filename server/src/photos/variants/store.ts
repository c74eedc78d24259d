import { photoFitCodes, type PhotoFitCode } from '@svc/shared';
import { QueryTypes, type Sequelize, type Transaction } from 'sequelize';
import { sqlDate } from '../../platform/db/sql-dates.js';

/** What a profile gets of a photo: `variant` names its own file; neither: the original. */
export interface VariantRow {
  variant: string | null;
  problem: string | null;
  /** The problem's code and values (null on rows written before them, and without a problem). */
  fit: { code: PhotoFitCode; params: Record<string, number> } | null;
}

function fitOf(json: string | null): VariantRow['fit'] {
  if (json === null) return null;
  try {
    const parsed = JSON.parse(json) as { code?: unknown; params?: unknown };
    const code = photoFitCodes.find((c) => c === parsed.code);
    return code && typeof parsed.params === 'object' && parsed.params !== null
      ? { code, params: parsed.params as Record<string, number> }
      : null;
  } catch {
    return null;
  }
}

/** The photo_variants table: one row per (source photo, profile key). */
export class VariantRows {
  constructor(private readonly sequelize: Sequelize) {}

  async find(source: string, profile: string): Promise<VariantRow | undefined> {
    const [row] = await this.sequelize.query<{
      variant_sha256: string | null;
      problem: string | null;
      problem_params: string | null;
    }>(
      `SELECT variant_sha256, problem, problem_params FROM photo_variants
        WHERE source_sha256 = ? AND profile = ?`,
      { replacements: [source, profile], type: QueryTypes.SELECT },
    );
    return (
      row && { variant: row.variant_sha256, problem: row.problem, fit: fitOf(row.problem_params) }
    );
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
      `${ignore} INTO photo_variants
          (source_sha256, profile, variant_sha256, problem, problem_params, created_at)
        SELECT ?, ?, ?, ?, ?, ? FROM files WHERE sha256 = ?`,
      {
        replacements: [
          source,
          profile,
          row.variant,
          row.problem?.slice(0, 500) ?? null,
          row.fit && JSON.stringify(row.fit),
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
