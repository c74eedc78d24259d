import { chmod, mkdtemp, rm, stat, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { startTestServer } from '../../test/harness.js';

/** Permission bits of a file (0o777 part). */
async function modeOf(file: string): Promise<number> {
  return (await stat(file)).mode & 0o777;
}

describe('SQLite files in DATA_DIR', () => {
  let dataDir: string;
  beforeEach(async () => {
    dataDir = await mkdtemp(path.join(os.tmpdir(), 'svc-sqlite-mode-'));
  });
  afterEach(async () => {
    await rm(dataDir, { recursive: true, force: true });
  });

  it('are created 0600: they hold password hashes and personal data', async () => {
    const storage = path.join(dataDir, 'svc.sqlite');
    const server = await startTestServer({ db: { dialect: 'sqlite', storage }, dataDir });
    try {
      // The write-ahead log and its shared memory exist while the service runs.
      for (const file of [storage, `${storage}-wal`, `${storage}-shm`]) {
        expect({ file: path.basename(file), mode: (await modeOf(file)).toString(8) }).toEqual({
          file: path.basename(file),
          mode: '600',
        });
      }
    } finally {
      await server.stop();
    }
  });

  it('left 0644 by an older version are narrowed to 0600 at start', async () => {
    const storage = path.join(dataDir, 'svc.sqlite');
    const first = await startTestServer({ db: { dialect: 'sqlite', storage }, dataDir });
    await first.stop();
    await chmod(storage, 0o644);
    await writeFile(`${storage}-wal`, '', { mode: 0o644 });
    await chmod(`${storage}-wal`, 0o644);
    const server = await startTestServer({ db: { dialect: 'sqlite', storage }, dataDir });
    try {
      expect((await modeOf(storage)).toString(8)).toBe('600');
      expect((await modeOf(`${storage}-wal`)).toString(8)).toBe('600');
      expect((await modeOf(`${storage}-shm`)).toString(8)).toBe('600');
    } finally {
      await server.stop();
    }
  });
});
