import { devicePersonState, deviceSn } from '@svc/shared';
import type { DevicePersonState } from '@svc/shared';
import { z } from 'zod';
import { memoryState, openStateFile } from '../state-file.js';

/** What a device keeps across restarts: the people it holds (state only, no photos). */
export const savedDeviceState = z.object({
  sn: deviceSn,
  key: z.string().optional(),
  centralUrl: z.string().optional(),
  persons: z.record(z.string(), devicePersonState),
});
export type SavedDeviceState = z.infer<typeof savedDeviceState>;

export interface PersonStore {
  get(id: string): DevicePersonState | undefined;
  has(id: string): boolean;
  size(): number;
  all(): Record<string, DevicePersonState>;
  put(state: DevicePersonState): Promise<void>;
  /** Resolves false when the person was not stored. */
  remove(id: string): Promise<boolean>;
  key(): string | undefined;
  centralUrl(): string | undefined;
  setConnection(change: { key?: string; centralUrl?: string }): Promise<void>;
}

export async function openPersonStore(
  sn: string,
  stateFile: string | undefined,
  initial: { key?: string; centralUrl?: string },
): Promise<PersonStore> {
  const file = stateFile
    ? openStateFile(stateFile, savedDeviceState)
    : memoryState<SavedDeviceState>();
  const loaded = await file.load();
  const persons = new Map(Object.entries(loaded?.persons ?? {}));
  // Options given at start win over what an earlier run saved.
  let key = initial.key ?? loaded?.key;
  let centralUrl = initial.centralUrl ?? loaded?.centralUrl;

  // Without a state file there is nothing to write; building the object of every person on
  // each PUT would make a device of 100,000 people quadratic.
  const persist = (): Promise<void> =>
    !stateFile
      ? Promise.resolve()
      : file.save({
          sn,
          ...(key ? { key } : {}),
          ...(centralUrl ? { centralUrl } : {}),
          persons: Object.fromEntries(persons),
        });

  return {
    get: (id) => persons.get(id),
    has: (id) => persons.has(id),
    size: () => persons.size,
    all: () => Object.fromEntries([...persons].map(([id, state]) => [id, { ...state }])),
    async put(state) {
      persons.set(state.id, { ...state });
      await persist();
    },
    async remove(id) {
      if (!persons.delete(id)) return false;
      await persist();
      return true;
    },
    key: () => key,
    centralUrl: () => centralUrl,
    async setConnection(change) {
      if (change.key !== undefined) key = change.key;
      if (change.centralUrl !== undefined) centralUrl = change.centralUrl;
      await persist();
    },
  };
}
