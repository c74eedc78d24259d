import { z } from 'zod';
import { formatMessage, ruleText } from './messages.js';

const MB = 1024 * 1024;

/** The import CSV's columns, as its header names them (case-insensitive; `_`, `-`, spaces ignored). */
export const IMPORT_COLUMNS = [
  'name',
  'idNumber',
  'phone',
  'notes',
  'validFrom',
  'validUntil',
  'enabled',
  'spaces',
] as const;
export type ImportColumn = (typeof IMPORT_COLUMNS)[number];

/**
 * The same columns as the Chinese template's header names them (web/public/people-template
 * .zh-CN.csv, the words of docs/glossary.md); the import reads either.
 */
export const IMPORT_COLUMNS_ZH: Readonly<Record<ImportColumn, string>> = {
  name: '姓名',
  idNumber: '证件号码',
  phone: '电话',
  notes: '备注',
  validFrom: '有效期自',
  validUntil: '有效期至',
  enabled: '启用',
  spaces: '空间',
};

/** `POST /api/imports/people` file limits: the server refuses more, the site says so first. */
export const IMPORT_LIMITS = { csvBytes: 20 * MB, photosBytes: 1024 * MB } as const;

/**
 * Why a row (or the file) was refused, by its message code (shared/src/messages.ts) and values:
 * `field` the column (an {@link ImportColumn}), `value` what the row held, `problem` a nested
 * field message code; a client says it in its own language with `describeMessage`.
 */
export const importRowReason = z.object({
  code: z.string(),
  params: z.record(z.string(), z.union([z.string(), z.number()])).optional(),
});
export type ImportRowReason = z.infer<typeof importRowReason>;

/**
 * One refused row of an import: its line in the file (1 = header; 0 = the file itself), its
 * ID number, why: `error` in the server's English (logs, API users), `reasons` by code (absent
 * on imports recorded before they were kept).
 */
export const importRowError = z.object({
  row: z.number().int(),
  idNumber: z.string().nullable(),
  error: z.string(),
  reasons: z.array(importRowReason).optional(),
});

/** The header of an import's refused rows as CSV, in the downloader's language. */
export const IMPORT_ERRORS_HEADER: Readonly<Record<'en' | 'zh-CN', readonly string[]>> = {
  en: ['row', 'idNumber', 'error', 'code'],
  'zh-CN': ['行', '证件号码', '原因', '代码'],
};

/** A column's name in a language: the Chinese template's words in zh-CN, else the English key. */
export function importColumnName(field: string, locale: string): string {
  // Read only to refuse a row of another organization (the export across all writes it).
  if (field === 'organization' && locale === 'zh-CN') return '组织';
  return locale === 'zh-CN' && field in IMPORT_COLUMNS_ZH
    ? IMPORT_COLUMNS_ZH[field as ImportColumn]
    : field;
}
export type ImportRowError = z.infer<typeof importRowError>;

/** A ZIP entry the import did not read, with why (`entry` is its name as the archive holds it). */
export const importRefusedEntry = z.object({
  entry: z.string(),
  reasons: z.array(importRowReason),
});
export type ImportRefusedEntry = z.infer<typeof importRefusedEntry>;

/**
 * What an import did with its ZIP of photos: rows saved without their photo (the photo refused,
 * as the person form saves a person without one), entries not read (a path in the name, not a
 * photo, a second photo for one ID number) and photos whose name matched no row. Each list holds
 * the first {@link IMPORT_PHOTO_LISTED} (its count counts them all).
 */
export const importPhotosReport = z.object({
  withoutPhoto: z.array(importRowError),
  withoutPhotoCount: z.number().int(),
  refusedEntries: z.array(importRefusedEntry),
  refusedEntryCount: z.number().int(),
  unmatched: z.array(z.string()),
  unmatchedCount: z.number().int(),
});
export type ImportPhotosReport = z.infer<typeof importPhotosReport>;

/** How many of each list of {@link importPhotosReport} are kept. */
export const IMPORT_PHOTO_LISTED = 1000;

/**
 * A people import (`POST /api/imports/people`, `GET /api/imports/:id`): `processed` of `total`
 * rows so far; `errors` holds the first 1,000 refused rows (`failed` counts them all); `photos`
 * what became of the ZIP's photos (null without a ZIP).
 */
export const importJobOut = z.object({
  id: z.string(),
  state: z.enum(['running', 'succeeded', 'failed']),
  total: z.number().int(),
  processed: z.number().int(),
  succeeded: z.number().int(),
  failed: z.number().int(),
  errors: z.array(importRowError),
  photos: importPhotosReport.nullable(),
  createdAt: z.string(),
  finishedAt: z.string().nullable(),
});
export type ImportJobOut = z.infer<typeof importJobOut>;

/**
 * `POST /api/imports/people/check`: every row read and judged, nothing written. With a ZIP,
 * `photos` lists the entries that would not be read and the photos that match no row (the face
 * check runs at the import itself, so `withoutPhoto` stays empty); null without one.
 */
export const importCheckOut = z.object({
  total: z.number().int(),
  /** Rows that would be refused; `errors` holds the first 1,000 of them. */
  failed: z.number().int(),
  errors: z.array(importRowError),
  photos: importPhotosReport.nullable(),
});
export type ImportCheckOut = z.infer<typeof importCheckOut>;

/** A file as the import form holds it: anything with a size (a browser `File`). */
const upload = (choose: 'choose_csv' | 'choose_zip', max: number) =>
  z
    .custom<Blob>((v) => typeof Blob !== 'undefined' && v instanceof Blob, ruleText(choose))
    .refine((file) => file.size <= max, formatMessage('file_too_large', { max: max / MB }));

/** A CSV by its name or type: a photo or a ZIP picked by mistake is refused before it is sent. */
const csvLike = (file: Blob) =>
  /^text\/|\/csv$|^application\/vnd\.ms-excel$/.test(file.type) ||
  ('name' in file && typeof file.name === 'string' && /\.(csv|txt)$/i.test(file.name));

/** The import form: a CSV, and optionally a ZIP of photos named by ID number. */
export const importFiles = z.object({
  csv: upload('choose_csv', IMPORT_LIMITS.csvBytes).refine(csvLike, ruleText('not_csv')),
  photos: upload('choose_zip', IMPORT_LIMITS.photosBytes).nullable(),
});
