import type { Response } from 'express';
import type { WhereOptions } from 'sequelize';
import { csvRow } from '../bulk/csv.js';
import type { AuditRow, Models } from '../db/models.js';
import { auditPages } from './store.js';

async function write(res: Response, chunk: string): Promise<void> {
  if (!res.write(chunk)) await new Promise((resolve) => res.once('drain', resolve));
}

/** The matching audit rows as CSV (formula cells neutralized by `csvRow`), oldest first. */
export async function exportAudit(
  models: Models,
  where: WhereOptions<AuditRow>,
  res: Response,
): Promise<void> {
  res.setHeader('Content-Type', 'text/csv; charset=utf-8');
  res.setHeader('Content-Disposition', 'attachment; filename="audit.csv"');
  res.write('\ufeff');
  await write(
    res,
    csvRow(['at', 'actor', 'action', 'outcome', 'targetType', 'targetId', 'ip', 'summary']),
  );
  for await (const rows of auditPages(models, where)) {
    await write(
      res,
      rows
        .map((r) =>
          csvRow([
            r.at.toISOString(),
            r.actorName,
            r.action,
            r.outcome,
            r.targetType,
            r.targetId,
            r.ip,
            r.summary,
          ]),
        )
        .join(''),
    );
  }
  res.end();
}
