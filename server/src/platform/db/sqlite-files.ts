import { constants } from 'node:fs';
import { chmod, open } from 'node:fs/promises';

/** The files of a SQLite database beside its main file (write-ahead log, shared memory, journal). */
const COMPANIONS = ['-wal', '-shm', '-journal'];

/**
 * Makes a SQLite database's files readable by the service's user only (0600): they hold
 * password hashes and people's personal data. The main file is created here, before SQLite
 * opens it, because SQLite gives its -wal and -shm files the main file's mode; files an older
 * version left 0644 are narrowed at start. A `:memory:` or `file:` storage is left alone.
 */
export async function keepSqliteFilesPrivate(storage: string): Promise<void> {
  if (storage === '' || storage === ':memory:' || storage.startsWith('file:')) return;
  const handle = await open(storage, constants.O_RDWR | constants.O_CREAT, 0o600);
  try {
    await handle.chmod(0o600);
  } finally {
    await handle.close();
  }
  for (const suffix of COMPANIONS) {
    try {
      await chmod(`${storage}${suffix}`, 0o600);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
    }
  }
}
