import { randomBytes } from 'node:crypto';
import { mkdir, readFile, rename, rm, writeFile } from 'node:fs/promises';
import { dirname } from 'node:path';
import type { z } from 'zod';

/**
 * A node's persisted state as one JSON file. Writes go to a temporary file that is renamed over
 * the old one, so a crash mid-write leaves the previous state intact; writes are serialized.
 */
export interface StateFile<T> {
  load(): Promise<T | undefined>;
  save(value: T): Promise<void>;
}

export function openStateFile<T>(path: string, schema: z.ZodType<T>): StateFile<T> {
  let queue: Promise<void> = Promise.resolve();
  return {
    async load() {
      let text: string;
      try {
        text = await readFile(path, 'utf8');
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
        throw error;
      }
      const parsed = schema.safeParse(JSON.parse(text));
      if (!parsed.success)
        throw new Error(`state file ${path} is not valid: ${parsed.error.message}`);
      return parsed.data;
    },
    save(value) {
      const write = async (): Promise<void> => {
        await mkdir(dirname(path), { recursive: true });
        const temporary = `${path}.${randomBytes(6).toString('hex')}.tmp`;
        try {
          // 0600: a terminal's state holds the token the central service issued to it.
          await writeFile(temporary, JSON.stringify(value, null, 2) + '\n', { mode: 0o600 });
          await rename(temporary, path);
        } catch (error) {
          await rm(temporary, { force: true });
          throw error;
        }
      };
      const next = queue.then(write, write);
      queue = next.catch(() => undefined);
      return next;
    },
  };
}

/** A state file that keeps nothing, for nodes started without `stateFile`. */
export function memoryState<T>(): StateFile<T> {
  return { load: () => Promise.resolve(undefined), save: () => Promise.resolve() };
}
