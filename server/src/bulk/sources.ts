import { readFile } from 'node:fs/promises';
import { parse } from 'csv-parse/sync';
import yauzl from 'yauzl';

/** One CSV line of an import, by column name (header names are case-insensitive). */
export interface CsvRecord {
  line: number;
  values: Record<string, string>;
}

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

/** Parses the import CSV; throws with a message for a person when the file itself is unusable. */
export async function readCsv(file: string): Promise<CsvRecord[]> {
  const text = (await readFile(file, 'utf8')).replace(/^\ufeff/, '');
  let rows: string[][];
  try {
    const parsed: unknown = parse(text, {
      relax_column_count: true,
      skip_empty_lines: true,
      trim: true,
    });
    rows = parsed as string[][];
  } catch (err) {
    throw new Error(`the CSV file cannot be read: ${(err as Error).message}`, { cause: err });
  }
  const [header, ...body] = rows;
  if (!header) throw new Error('the CSV file is empty');
  const known = new Map(IMPORT_COLUMNS.map((c) => [c.toLowerCase(), c]));
  const columns = header.map((h) => known.get(h.toLowerCase().replace(/[\s_-]/g, '')));
  for (const required of ['name', 'idNumber']) {
    if (!columns.some((c) => c === required)) {
      throw new Error(
        `the CSV header has no "${required}" column (columns: ${IMPORT_COLUMNS.join(', ')})`,
      );
    }
  }
  return body.map((cells, i) => ({
    line: i + 2,
    values: Object.fromEntries(
      columns.flatMap((c, j) =>
        c && cells[j] !== undefined && cells[j] !== '' ? [[c, cells[j]]] : [],
      ),
    ),
  }));
}

export interface PhotoArchive {
  /** The photo for an ID number (`<idNumber>.jpg|.jpeg|.png`, any folder, any case), or undefined. */
  photoFor(idNumber: string): Promise<Buffer | undefined>;
  close(): void;
}

const PHOTO = /(?:^|\/)([^/]+)\.(jpe?g|png)$/i;

/** Indexes a ZIP of photos without extracting it; entries are read on demand, size-limited. */
export async function openPhotoArchive(file: string, maxEntryBytes: number): Promise<PhotoArchive> {
  const zip = await new Promise<yauzl.ZipFile>((resolve, reject) =>
    yauzl.open(file, { lazyEntries: true, autoClose: false }, (err, z) =>
      err ? reject(err) : resolve(z),
    ),
  );
  const entries = new Map<string, yauzl.Entry>();
  await new Promise<void>((resolve, reject) => {
    zip.on('entry', (entry: yauzl.Entry) => {
      const match = PHOTO.exec(entry.fileName);
      if (match && !entry.fileName.endsWith('/')) entries.set(match[1]!.toLowerCase(), entry);
      zip.readEntry();
    });
    zip.on('end', () => resolve());
    zip.on('error', reject);
    zip.readEntry();
  });
  return {
    async photoFor(idNumber) {
      const entry = entries.get(idNumber.toLowerCase());
      if (!entry) return undefined;
      if (entry.uncompressedSize > maxEntryBytes) {
        throw new Error(
          `its photo ${entry.fileName} is larger than ${Math.round(maxEntryBytes / 1024 / 1024)} MB`,
        );
      }
      const stream = await new Promise<NodeJS.ReadableStream>((resolve, reject) =>
        zip.openReadStream(entry, (err, s) => (err ? reject(err) : resolve(s))),
      );
      const chunks: Buffer[] = [];
      let size = 0;
      for await (const chunk of stream as AsyncIterable<Buffer>) {
        size += chunk.length;
        // Guards against an entry whose header lies about its size.
        if (size > maxEntryBytes) throw new Error(`its photo ${entry.fileName} is too large`);
        chunks.push(chunk);
      }
      return Buffer.concat(chunks);
    },
    close: () => zip.close(),
  };
}
