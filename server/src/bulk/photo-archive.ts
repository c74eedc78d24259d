import yauzl from 'yauzl';
import { IMPORT_PHOTO_LISTED, type ImportRefusedEntry } from '@svc/shared';
import { ImportRefusal, MAX_ZIP_ENTRIES, openZip, refusal, unreadable } from './sources.js';

/**
 * A ZIP of photos, indexed without extracting it: nothing of it is ever written to disk (a
 * photo is read into memory for its row and stored under its content's hash), so no entry
 * name can place a file anywhere. Names that hold a path leading out of the archive are
 * refused one by one and said in the import's result; the other entries are read.
 */
export interface PhotoArchive {
  /** The photo for an ID number (`<idNumber>.jpg|.jpeg|.png`, any folder, any case), or undefined. */
  photoFor(idNumber: string): Promise<Buffer | undefined>;
  /** A row of the file holds this ID number: a photo named for it matched a row. */
  seen(idNumber: string): void;
  /** Entries not read, and why (the first {@link IMPORT_PHOTO_LISTED}), and how many in all. */
  readonly refused: ImportRefusedEntry[];
  readonly refusedCount: number;
  /** Photos whose name matched no row seen so far (the first listed), and how many in all. */
  unmatched(): { names: string[]; count: number };
  close(): void;
}

const PHOTO = /^(.+)\.(jpe?g|png)$/i;

/** The longest entry name a result repeats (a name may be 65,535 bytes long). */
const MAX_NAME = 200;

/** An entry's name as a person reads it: control characters shown, a huge name cut short. */
const shown = (name: string) => {
  // eslint-disable-next-line no-control-regex
  const visible = name.replace(/[\u0000-\u001f\u007f]/g, '\uFFFD');
  return visible.length > MAX_NAME ? `${visible.slice(0, MAX_NAME - 1)}…` : visible;
};

/**
 * Why an entry's name is not read as a photo, by message code; undefined for a usable one.
 * The archive's name is kept as written (backslashes are not turned into folders).
 */
function pathProblem(name: string): string | undefined {
  // eslint-disable-next-line no-control-regex
  if (/[\u0000-\u001f\u007f]/.test(name)) return 'import_entry_name';
  if (name.includes('\\')) return 'import_entry_backslash';
  if (name.startsWith('/') || /^[a-zA-Z]:/.test(name)) return 'import_entry_absolute';
  if (name.split('/').includes('..')) return 'import_entry_parent';
  return undefined;
}

/** What archivers add beside the files (macOS's resource forks, Finder's and Explorer's files). */
const systemFile = (name: string) => {
  const parts = name.split('/');
  const base = parts.at(-1) ?? '';
  return (
    parts.includes('__MACOSX') || base.startsWith('.') || /^(thumbs\.db|desktop\.ini)$/i.test(base)
  );
};

/** Indexes a ZIP of photos without extracting it; entries are read on demand, size-limited. */
export async function openPhotoArchive(file: string, maxEntryBytes: number): Promise<PhotoArchive> {
  const zip = await openZip(file);
  if (zip.entryCount > MAX_ZIP_ENTRIES) {
    zip.close();
    throw refusal('import_zip_entries', { entries: zip.entryCount, max: MAX_ZIP_ENTRIES });
  }
  const entries = new Map<string, yauzl.Entry & { name: string }>();
  const refused: ImportRefusedEntry[] = [];
  let refusedCount = 0;
  const refuse = (name: string, code: string, params: Record<string, string> = {}) => {
    refusedCount++;
    if (refused.length < IMPORT_PHOTO_LISTED) {
      refused.push({ entry: shown(name), reasons: [{ code, params: { ...params } }] });
    }
  };
  const index = (entry: yauzl.Entry) => {
    const name = yauzl.getFileNameLowLevel(
      entry.generalPurposeBitFlag,
      entry.fileNameRaw,
      entry.extraFields,
      true,
    );
    if (name.endsWith('/') || systemFile(name)) return;
    const problem = pathProblem(name);
    if (problem !== undefined) return refuse(name, problem);
    const match = PHOTO.exec(name.split('/').at(-1)!);
    if (!match) return refuse(name, 'import_entry_not_photo');
    const key = match[1]!.toLowerCase();
    const first = entries.get(key);
    if (first) return refuse(name, 'import_entry_twice', { other: shown(first.name) });
    entries.set(key, Object.assign(entry, { name }));
  };
  await new Promise<void>((resolve, reject) => {
    zip.on('entry', (entry: yauzl.Entry) => {
      index(entry);
      zip.readEntry();
    });
    zip.on('end', () => resolve());
    zip.on('error', reject);
    zip.readEntry();
  }).catch((err: unknown) => {
    zip.close();
    throw unreadable('import_zip_unreadable', err);
  });
  const seen = new Set<string>();
  const tooLarge = (entry: { name: string }) =>
    refusal('import_photo_too_large', {
      file: shown(entry.name),
      max: Math.round(maxEntryBytes / 1024 / 1024),
    });
  return {
    async photoFor(idNumber) {
      const entry = entries.get(idNumber.toLowerCase());
      if (!entry) return undefined;
      if (entry.uncompressedSize > maxEntryBytes) throw tooLarge(entry);
      const chunks: Buffer[] = [];
      let size = 0;
      try {
        const stream = await new Promise<NodeJS.ReadableStream>((resolve, reject) =>
          zip.openReadStream(entry, (err, s) => (err ? reject(err) : resolve(s))),
        );
        for await (const chunk of stream as AsyncIterable<Buffer>) {
          size += chunk.length;
          // Guards against an entry whose header lies about its size.
          if (size > maxEntryBytes) throw tooLarge(entry);
          chunks.push(chunk);
        }
      } catch (err) {
        // A damaged entry is its row's photo problem, by code; the archive's words go to the log.
        throw err instanceof ImportRefusal ? err : unreadable('import_photo_unreadable', err);
      }
      return Buffer.concat(chunks);
    },
    seen: (idNumber) => void seen.add(idNumber.toLowerCase()),
    refused,
    get refusedCount() {
      return refusedCount;
    },
    unmatched() {
      const names: string[] = [];
      let count = 0;
      for (const [key, entry] of entries) {
        if (seen.has(key)) continue;
        count++;
        if (names.length < IMPORT_PHOTO_LISTED) names.push(shown(entry.name));
      }
      return { names, count };
    },
    close: () => zip.close(),
  };
}
