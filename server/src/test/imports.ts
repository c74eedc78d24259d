import yazl from 'yazl';
import { CSRF_HEADER } from '@svc/shared';
import type { TestClient } from './http-client.js';
import { waitFor } from './wait.js';

/** The people import through its API, for the suites that drive it (bulk, faces). */

export function zip(files: Record<string, Buffer>): Promise<Buffer> {
  const z = new yazl.ZipFile();
  for (const [name, data] of Object.entries(files)) z.addBuffer(data, name);
  z.end();
  const chunks: Buffer[] = [];
  return new Promise((resolve, reject) => {
    z.outputStream.on('data', (c: Buffer) => chunks.push(c));
    z.outputStream.on('end', () => resolve(Buffer.concat(chunks)));
    z.outputStream.on('error', reject);
  });
}

/**
 * A ZIP (ZIP64, as any archive of over 65,535 entries is) whose end records declare `entries`
 * entries: all the server reads before refusing it.
 */
export function zipDeclaring(entries: number): Buffer {
  const record = Buffer.alloc(56);
  record.writeUInt32LE(0x06064b50, 0);
  record.writeBigUInt64LE(44n, 4);
  record.writeUInt16LE(45, 12);
  record.writeBigUInt64LE(BigInt(entries), 24);
  record.writeBigUInt64LE(BigInt(entries), 32);
  const locator = Buffer.alloc(20);
  locator.writeUInt32LE(0x07064b50, 0);
  locator.writeBigUInt64LE(0n, 8);
  locator.writeUInt32LE(1, 16);
  const end = Buffer.alloc(22);
  end.writeUInt32LE(0x06054b50, 0);
  end.writeUInt16LE(0xffff, 8);
  end.writeUInt16LE(0xffff, 10);
  end.writeUInt32LE(0xffffffff, 12);
  end.writeUInt32LE(0xffffffff, 16);
  return Buffer.concat([record, locator, end]);
}

export async function upload(
  client: TestClient,
  files: { csv?: string | Buffer; photos?: Buffer },
  /** The check (`/api/imports/people/check`) takes the same form. */
  to = '/api/imports/people',
) {
  const form = new FormData();
  if (files.csv !== undefined)
    form.append('csv', new Blob([files.csv], { type: 'text/csv' }), 'people.csv');
  if (files.photos)
    form.append('photos', new Blob([files.photos], { type: 'application/zip' }), 'photos.zip');
  const res = await fetch(`${client.baseUrl}${to}`, {
    method: 'POST',
    headers: {
      cookie: `svc_session=${client.cookie('svc_session')}; svc_csrf=${client.cookie('svc_csrf')}`,
      [CSRF_HEADER]: await client.csrf(),
    },
    body: form,
  });
  return {
    status: res.status,
    body: (await res.json()) as {
      id: string;
      state: string;
      error?: { code: string; fields?: Record<string, string> };
    },
  };
}

export type Job = {
  state: string;
  total: number;
  processed: number;
  succeeded: number;
  failed: number;
  errors: { row: number; error: string }[];
};

/** The import once it has stopped running. */
export const finished = (client: TestClient, id: string, ms = 30_000) =>
  waitFor(
    async () => (await client.get(`/api/imports/${id}`)).body as Job,
    (j) => j.state !== 'running',
    ms,
  );

const CRC_TABLE = Array.from({ length: 256 }, (_, n) => {
  let c = n;
  for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
  return c >>> 0;
});

function crc32(data: Buffer): number {
  let crc = 0xffffffff;
  for (const byte of data) crc = CRC_TABLE[(crc ^ byte) & 0xff]! ^ (crc >>> 8);
  return (crc ^ 0xffffffff) >>> 0;
}

/**
 * A ZIP of stored entries named exactly as given (UTF-8 flag set), where yazl refuses names
 * such as "../x.jpg" or "C:/x.jpg": what a hostile or careless archiver may write.
 */
export function rawZip(files: Record<string, Buffer>): Buffer {
  const locals: Buffer[] = [];
  const centrals: Buffer[] = [];
  let offset = 0;
  for (const [name, data] of Object.entries(files)) {
    const fileName = Buffer.from(name, 'utf8');
    const crc = crc32(data);
    const local = Buffer.alloc(30);
    local.writeUInt32LE(0x04034b50, 0);
    local.writeUInt16LE(20, 4);
    local.writeUInt16LE(0x800, 6);
    local.writeUInt32LE(crc, 14);
    local.writeUInt32LE(data.length, 18);
    local.writeUInt32LE(data.length, 22);
    local.writeUInt16LE(fileName.length, 26);
    const central = Buffer.alloc(46);
    central.writeUInt32LE(0x02014b50, 0);
    central.writeUInt16LE(20, 4);
    central.writeUInt16LE(20, 6);
    central.writeUInt16LE(0x800, 8);
    central.writeUInt32LE(crc, 16);
    central.writeUInt32LE(data.length, 20);
    central.writeUInt32LE(data.length, 24);
    central.writeUInt16LE(fileName.length, 28);
    central.writeUInt32LE(offset, 42);
    locals.push(local, fileName, data);
    centrals.push(central, fileName);
    offset += local.length + fileName.length + data.length;
  }
  const directory = Buffer.concat(centrals);
  const end = Buffer.alloc(22);
  end.writeUInt32LE(0x06054b50, 0);
  end.writeUInt16LE(centrals.length / 2, 8);
  end.writeUInt16LE(centrals.length / 2, 10);
  end.writeUInt32LE(directory.length, 12);
  end.writeUInt32LE(offset, 16);
  return Buffer.concat([...locals, directory, end]);
}
