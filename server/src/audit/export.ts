import type { Response } from 'express';
import type { WhereOptions } from 'sequelize';
import { csvRow } from '../bulk/csv.js';
import type { AuditRow, Models } from '../platform/db/models.js';
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
  // The first page is read before anything is sent, so a failing query is an error answer,
  // not a download cut off after its headers.
  const pages = auditPages(models, where);
  const first = await pages.next();
  res.setHeader('Content-Type', 'text/csv; charset=utf-8');
  res.setHeader('Content-Disposition', 'attachment; filename="audit.csv"');
  res.write('\ufeff');
  await write(
    res,
    csvRow(['at', 'actor', 'action', 'outcome', 'targetType', 'targetId', 'ip', 'summary']),
  );
  const rest = async function* () {
    if (first.done !== true) yield first.value;
    yield* pages;
  };
  for await (const rows of rest()) {
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
