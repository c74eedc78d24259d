import { createReadStream } from 'node:fs';
import { open } from 'node:fs/promises';
import { Transform } from 'node:stream';
import { parse, type Options } from 'csv-parse';
import yauzl from 'yauzl';
import {
  IMPORT_COLUMNS,
  IMPORT_COLUMNS_ZH,
  describeMessage,
  formatEnglish,
  type ImportColumn,
  type ImportRowReason,
} from '@svc/shared';

export { IMPORT_COLUMNS };

/** One CSV line of an import, by column name (header names are case-insensitive). */
export interface CsvRecord {
  line: number;
  values: Record<string, string>;
  /** The row holds text in more cells than the header has columns. */
  overflow?: { cells: number; columns: number };
}

/**
 * `organization` is read only to refuse a row of another organization (rows.ts): the export
 * across all organizations writes it, and its file must not import into the wrong one.
 */
type Columns = ImportColumn | 'organization' | undefined;

/**
 * A row (or the file) refused, with its reasons by code; the message is the server's English
 * (logs, API users), the reasons what a client says in its reader's language.
 */
export class ImportRefusal extends Error {
  constructor(readonly reasons: ImportRowReason[]) {
    super(reasons.map((r) => describeMessage(r, formatEnglish)).join(' '));
  }
}

export const refusal = (code: string, params?: ImportRowReason['params']) =>
  new ImportRefusal([{ code, ...(params && { params }) }]);

/** A refusal for a file the archive library could not read; its own words kept as the cause. */
export function unreadable(code: string, cause: unknown): ImportRefusal {
  const problem = refusal(code);
  problem.cause = cause;
  return problem;
}

/** Header names, English (any case) or as the Chinese template writes them. */
const KNOWN_COLUMNS = new Map<string, Exclude<Columns, undefined>>([
  ...IMPORT_COLUMNS.map((c) => [c.toLowerCase(), c] as const),
  ...IMPORT_COLUMNS.map((c) => [IMPORT_COLUMNS_ZH[c], c] as const),
  ['organization', 'organization'],
  ['组织', 'organization'],
]);

function headerColumns(header: string[] | undefined): Columns[] {
  if (!header) throw refusal('import_empty_file');
  const known = KNOWN_COLUMNS;
  const columns = header.map((h) => known.get(h.toLowerCase().replace(/[\s_-]/g, '')));
  for (const required of ['name', 'idNumber']) {
    if (!columns.some((c) => c === required)) {
      throw refusal('import_no_column', { field: required });
    }
  }
  return columns;
}

/**
 * Whether the file's start reads as text: a photo, a ZIP or a spreadsheet picked by mistake
 * is refused before an import starts rather than listed as rows of binary.
 */
export async function looksLikeText(file: string): Promise<boolean> {
  const handle = await open(file, 'r');
  try {
    const { buffer, bytesRead } = await handle.read(Buffer.alloc(4096), 0, 4096, 0);
    const head = buffer.subarray(0, bytesRead);
    // NUL never occurs in text; photos, archives and documents also start with a signature.
    // Other encodings than UTF-8 are let through: GB18030 (Excel on Chinese Windows) is read.
    const signatures = ['ffd8ff', '89504e47', '504b0304', '25504446', '47494638', 'd0cf11e0'];
    return !head.includes(0) && !signatures.some((sig) => head.toString('hex').startsWith(sig));
  } finally {
    await handle.close();
  }
}

/**
 * The file's text encoding: UTF-8 (with or without a BOM) when every byte decodes strictly as
 * UTF-8, else GB18030 — what Excel writes "CSV" in on a Chinese Windows (a superset of GBK and
 * GB2312). Read once, streamed, nothing kept.
 */
export async function csvEncoding(file: string): Promise<'utf-8' | 'gb18030'> {
  const strict = new TextDecoder('utf-8', { fatal: true });
  try {
    for await (const chunk of createReadStream(file) as AsyncIterable<Buffer>) {
      strict.decode(chunk, { stream: true });
    }
    strict.decode();
    return 'utf-8';
  } catch {
    return 'gb18030';
  }
}

/** Bytes in, text out, in `encoding` (a UTF-8 BOM dropped; a character split across chunks kept). */
function decoding(encoding: string): Transform {
  const decoder = new TextDecoder(encoding);
  return new Transform({
    readableObjectMode: true,
    transform(chunk: Buffer, _enc, done) {
      done(null, decoder.decode(chunk, { stream: true }));
    },
    flush(done) {
      const rest = decoder.decode();
      done(null, rest === '' ? undefined : rest);
    },
  });
}

/** A line break as a text editor counts one (Windows, Unix and old Mac line ends). */
const LINE_BREAK = /\r\n|\r|\n/g;
const lineBreaks = (text: string) => text.match(LINE_BREAK)?.length ?? 0;
/** The empty (or blank) lines the parser skipped before a record, at the start of its text. */
const blankLines = (text: string) => lineBreaks(/^\s*/.exec(text)![0]);

/** What csv-parse says of a file it cannot read: its code, and the record's text so far. */
interface ParseError extends Error {
  code?: string;
  raw?: string;
}

/**
 * A file csv-parse cannot read, said by code with its line and what to write instead; the
 * parser's own English is kept as the cause (logs). `start` is the line the broken record
 * starts on; a stray quote is said on its own line (a quoted cell may span several).
 */
function csvProblem(err: unknown, start: number): ImportRefusal {
  const { code, message, raw = '' } = err as ParseError;
  const at = start + lineBreaks(raw);
  const problem =
    code === 'CSV_QUOTE_NOT_CLOSED'
      ? refusal('import_quote_not_closed', { line: start + blankLines(raw) })
      : code === 'CSV_INVALID_CLOSING_QUOTE' || code === 'CSV_NON_TRIMABLE_CHAR_AFTER_CLOSING_QUOTE'
        ? refusal('import_text_after_quote', { line: at })
        : code === 'INVALID_OPENING_QUOTE'
          ? refusal('import_quote_in_cell', { line: at })
          : refusal('import_unreadable_line', { line: start + blankLines(raw) });
  // For the log, the parser's words only: the error also holds the record's text (people's
  // data, up to the rest of the file after a quote never closed).
  problem.cause = new Error(`${code ?? 'csv'}: ${message}`);
  return problem;
}

/** The file's rows of cells, streamed: a large file is never in memory as a whole. */
async function* csvRows(file: string): AsyncGenerator<string[]> {
  const encoding = await csvEncoding(file);
  // The line (a text editor's; the header is 1) the next record starts on, counted from each
  // record's text as the parser reads it, for a problem to be said where it is. The parser's
  // own count takes a Windows line end inside a quoted cell for two.
  let next = 1;
  const counted = ({ record, raw }: { record: string[]; raw: string }) => {
    next += lineBreaks(raw);
    return record;
  };
  const options: Options = {
    bom: true,
    relax_column_count: true,
    skip_empty_lines: true,
    trim: true,
    raw: true,
    // With `raw`, a record reaches on_record as {record, raw}; the types know only arrays.
    on_record: counted as unknown as Options['on_record'],
  };
  const parser = createReadStream(file).pipe(decoding(encoding)).pipe(parse(options));
  try {
    for await (const cells of parser as AsyncIterable<string[]>) yield cells;
  } catch (err) {
    throw csvProblem(err, next);
  } finally {
    parser.destroy();
  }
}

/**
 * Reads the whole import CSV once without keeping it, and returns its number of records; throws
 * with a message for a person when the file itself is unusable (so nothing is imported from a
 * file that breaks halfway).
 */
export async function countCsv(file: string): Promise<number> {
  let n = -1;
  for await (const cells of csvRows(file)) {
    if (n === -1) headerColumns(cells);
    n++;
  }
  if (n === -1) headerColumns(undefined);
  // A header alone (a template saved unfilled, say) is no import of nobody, done.
  if (n === 0) throw refusal('import_no_rows');
  return n;
}

/** The import CSV's records, by column name (header names are case-insensitive), streamed. */
export async function* readCsv(file: string): AsyncGenerator<CsvRecord> {
  let columns: Columns[] | undefined;
  let line = 1;
  for await (const cells of csvRows(file)) {
    if (!columns) {
      columns = headerColumns(cells);
      continue;
    }
    line++;
    const values: Record<string, string> = {};
    columns.forEach((c, j) => {
      const cell = cells[j];
      if (c && cell !== undefined && cell !== '') values[c] = cell;
    });
    // Text past the header's last column: a comma in a cell not quoted, most likely, which
    // moved the cells after it into the wrong columns. Empty cells there (trailing commas) are
    // no problem.
    const used = cells.findLastIndex((cell) => cell !== '') + 1;
    yield {
      line,
      values,
      ...(used > columns.length && { overflow: { cells: used, columns: columns.length } }),
    };
  }
  if (!columns) headerColumns(undefined);
  if (line === 1) throw refusal('import_no_rows');
}

/**
 * Entries a ZIP of photos may hold: one photo per person of the largest sites, with room for
 * folders. Each entry is indexed in memory while the import runs, so a ZIP of millions of
 * tiny entries is refused before anything is read.
 */
export const MAX_ZIP_ENTRIES = 100_000;

/**
 * Opens a ZIP to read its entries one by one. Names are left undecoded (`decodeStrings: false`):
 * yauzl would stop at the first entry whose name holds a path it refuses ("../x.jpg"), where the
 * import refuses that one entry and reads the others (./photo-archive.ts).
 */
export function openZip(file: string): Promise<yauzl.ZipFile> {
  return new Promise<yauzl.ZipFile>((resolve, reject) =>
    yauzl.open(file, { lazyEntries: true, autoClose: false, decodeStrings: false }, (err, z) =>
      err ? reject(err) : resolve(z),
    ),
  );
}

/** The number of entries a ZIP declares (its central directory's end record; nothing else read). */
export async function zipEntryCount(file: string): Promise<number> {
  const zip = await openZip(file);
  const n = zip.entryCount;
  zip.close();
  return n;
}
