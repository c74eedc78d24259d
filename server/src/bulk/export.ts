import type { Request, Response } from 'express';
import {
  IMPORT_COLUMNS,
  IMPORT_ERRORS_HEADER,
  acceptLanguageTags,
  describeMessage,
  fillText,
  formatEnglish,
  importColumnName,
  isLocale,
  loadSharedTexts,
  pickLocale,
  type FormatText,
  type Locale,
} from '@svc/shared';
import { Op } from 'sequelize';
import type { AppContext } from '../platform/context.js';
import { orgScope, orgWhere } from '../platform/http/scope.js';
import { csvRow } from './csv.js';
import type { RowError } from './import-job.js';

const PAGE = 1000;
const iso = (d: Date | null) => (d ? d.toISOString() : '');

export function startCsv(res: Response, name: string): void {
  res.setHeader('Content-Type', 'text/csv; charset=utf-8');
  res.setHeader('Content-Disposition', `attachment; filename="${name}"`);
  // A BOM so spreadsheet programs read the file as UTF-8.
  res.write('\ufeff');
}

/** Writes and waits for the socket to drain: a million rows never sit in memory at once. */
async function write(res: Response, chunk: string): Promise<void> {
  if (!res.write(chunk)) await new Promise((resolve) => res.once('drain', resolve));
}

/** The import's columns, then what only an export says (the import ignores these). */
const PEOPLE_COLUMNS = [...IMPORT_COLUMNS, 'photoSha256', 'createdAt', 'updatedAt'];

const namesById = (rows: { id: string; name: string }[]) =>
  new Map(rows.map((row) => [row.id, row.name]));

/**
 * The organizations' names, first column, when a superadmin exports "All organizations": a
 * person's organization is not otherwise in the file. The import ignores that column (as it
 * does photoSha256 and the times), so the file still imports back.
 */
async function organizationNames(
  ctx: AppContext,
  req: Request,
): Promise<Map<string, string> | null> {
  if (orgScope(req) !== null) return null;
  return namesById(
    await ctx.models.Organization.findAll({ attributes: ['id', 'name'], raw: true }),
  );
}

/** People of the administrator's organization(s), streamed in id order (keyset pages). */
export async function exportPeople(ctx: AppContext, req: Request, res: Response): Promise<void> {
  const { Person, PersonSpace, Space } = ctx.models;
  const where = orgWhere(req);
  const spaceNames = namesById(
    await Space.findAll({ where, attributes: ['id', 'name'], raw: true }),
  );
  const organizations = await organizationNames(ctx, req);
  const organizationOf = (id: string) =>
    organizations === null ? [] : [organizations.get(id) ?? id];
  startCsv(res, 'people.csv');
  await write(
    res,
    csvRow([...(organizations === null ? [] : ['organization']), ...PEOPLE_COLUMNS]),
  );
  let after = '';
  for (;;) {
    const rows = await Person.findAll({
      where: { ...where, id: { [Op.gt]: after } },
      order: [['id', 'ASC']],
      limit: PAGE,
    });
    if (rows.length === 0) break;
    const access = await PersonSpace.findAll({
      where: { personId: rows.map((r) => r.id) },
      raw: true,
    });
    const bySpace = new Map<string, string[]>();
    for (const a of access)
      bySpace.set(a.personId, [
        ...(bySpace.get(a.personId) ?? []),
        spaceNames.get(a.spaceId) ?? a.spaceId,
      ]);
    let chunk = '';
    for (const p of rows) {
      chunk += csvRow([
        ...organizationOf(p.organizationId),
        p.name,
        p.idNumber,
        p.phone,
        p.notes,
        iso(p.validFrom),
        iso(p.validUntil),
        p.enabled,
        (bySpace.get(p.id) ?? []).join(';'),
        p.photoSha256,
        iso(p.createdAt),
        iso(p.updatedAt),
      ]);
    }
    await write(res, chunk);
    after = rows[rows.length - 1]!.id;
  }
  res.end();
}

/**
 * The language an export speaks: the site's (`?lang=`, sent by the page), else the
 * administrator's chosen one, else what their browser asks for.
 */
export function exportLocale(req: Request): Locale {
  const asked = (req.query as Record<string, unknown>).lang;
  if (isLocale(asked)) return asked;
  const chosen = req.auth?.admin.language;
  if (isLocale(chosen)) return chosen;
  return pickLocale(acceptLanguageTags(req.headers['accept-language']));
}

/** A code's text in `locale` (field messages, then conflict reasons), English when it has none. */
async function formatIn(locale: Locale): Promise<FormatText> {
  if (locale === 'en') return formatEnglish;
  const texts = await loadSharedTexts(locale);
  const table: Record<string, string> = { ...texts.reasons, ...texts.messages };
  return (code, params) =>
    code in table ? fillText(table[code]!, params) : formatEnglish(code, params);
}

/**
 * An import's refused rows (the ones it keeps: the first 1,000) as a CSV to correct and retry,
 * in the downloader's language, with the rows saved without their photo among them (row order):
 * each reason said from its code, the codes in the last column for a program; a row kept before
 * reasons were coded keeps its English.
 */
export async function exportImportErrors(
  res: Response,
  id: string,
  rows: { refused: RowError[]; withoutPhoto: RowError[] },
  locale: Locale,
): Promise<void> {
  const format = await formatIn(locale);
  const column = (field: string) => importColumnName(field, locale);
  const said = (e: RowError) =>
    e.reasons ? e.reasons.map((r) => describeMessage(r, format, column)).join(' ') : e.error;
  const codes = (e: RowError) => e.reasons?.map((r) => r.code).join(' ') ?? '';
  const lines = [
    ...rows.refused.map((e) => ({ row: e.row, cells: [e.row, e.idNumber, said(e), codes(e)] })),
    ...rows.withoutPhoto.map((e) => ({
      row: e.row,
      cells: [
        e.row,
        e.idNumber,
        e.reasons ? format('import_saved_without_photo', { problem: said(e) }) : e.error,
        ['import_saved_without_photo', codes(e)].filter(Boolean).join(' '),
      ],
    })),
  ].sort((a, b) => a.row - b.row);
  startCsv(res, `import-${id.slice(0, 8)}-errors.csv`);
  res.write(csvRow([...IMPORT_ERRORS_HEADER[locale]]));
  res.end(lines.map((l) => csvRow(l.cells)).join(''));
}
