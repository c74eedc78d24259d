import type { Response } from 'express';
import { Op, type WhereOptions } from 'sequelize';
import type { AppContext } from '../../platform/context.js';
import type { RecognitionEventRow } from '../../platform/db/business-models.js';
import { csvRow } from '../../bulk/csv.js';

const PAGE = 1000;
const iso = (d: Date | null) => (d ? d.toISOString() : '');

async function write(res: Response, chunk: string): Promise<void> {
  if (!res.write(chunk)) await new Promise((resolve) => res.once('drain', resolve));
}

/** Events matching `where`, newest first, in keyset pages (never all in memory). */
export async function exportEvents(
  ctx: AppContext,
  where: WhereOptions<RecognitionEventRow>,
  res: Response,
): Promise<void> {
  res.setHeader('Content-Type', 'text/csv; charset=utf-8');
  res.setHeader('Content-Disposition', 'attachment; filename="events.csv"');
  res.write('\ufeff');
  await write(
    res,
    csvRow([
      'id',
      'eventId',
      'time',
      'receivedAt',
      'personId',
      'personName',
      'deviceSn',
      'deviceName',
      'spaceId',
      'spaceName',
      'score',
      'deliveryState',
      'deliveryAttempts',
      'deliveredAt',
      'deliveryError',
    ]),
  );
  let after: { time: Date; id: string } | undefined;
  for (;;) {
    const page = after
      ? {
          [Op.or]: [
            { time: { [Op.lt]: after.time } },
            { time: after.time, id: { [Op.lt]: after.id } },
          ],
        }
      : {};
    const rows = await ctx.models.RecognitionEvent.findAll({
      where: { [Op.and]: [where, page] },
      order: [
        ['time', 'DESC'],
        ['id', 'DESC'],
      ],
      limit: PAGE,
    });
    if (rows.length === 0) break;
    await write(
      res,
      rows
        .map((r) =>
          csvRow([
            r.id,
            r.eventId,
            iso(r.time),
            iso(r.receivedAt),
            r.personId,
            r.personName,
            r.deviceSn,
            r.deviceName,
            r.spaceId,
            r.spaceName,
            r.score,
            r.deliveryState,
            r.deliveryAttempts,
            iso(r.deliveredAt),
            r.deliveryError,
          ]),
        )
        .join(''),
    );
    const last = rows[rows.length - 1]!;
    after = { time: last.time, id: last.id };
    if (rows.length < PAGE) break;
  }
  res.end();
}
