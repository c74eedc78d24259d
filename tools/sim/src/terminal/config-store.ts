import { centralUrl, isoTime, optionalHttpUrl } from '@svc/shared';
import type { TerminalConfig, TerminalConfigUpdate, TerminalKind } from '@svc/shared';
import { z } from 'zod';
import { memoryState, openStateFile } from '../state-file.js';
import type { StateFile } from '../state-file.js';

/** What a terminal keeps across restarts. The token is kept but never served. */
export const savedTerminalState = z.object({
  id: z.string(),
  kind: z.string(),
  centralUrl: z.union([z.literal(''), centralUrl]),
  panelUrl: optionalHttpUrl,
  token: z.string().optional(),
  updatedAt: z.union([isoTime, z.null()]),
});
export type SavedTerminalState = z.infer<typeof savedTerminalState>;

export interface ConfigStore {
  config(): TerminalConfig;
  token(): string | undefined;
  /** Saves an update (with `centralUrlOverride` in place of the pushed URL when set). */
  save(
    update: TerminalConfigUpdate,
    now: Date,
    centralUrlOverride?: string,
  ): Promise<TerminalConfig>;
}

export async function openConfigStore(
  id: string,
  kind: TerminalKind,
  stateFile: string | undefined,
): Promise<ConfigStore> {
  const file: StateFile<SavedTerminalState> = stateFile
    ? openStateFile(stateFile, savedTerminalState)
    : memoryState();
  let saved: SavedTerminalState = (await file.load()) ?? {
    id,
    kind,
    centralUrl: '',
    panelUrl: '',
    updatedAt: null,
  };

  const config = (): TerminalConfig => ({
    id,
    kind,
    centralUrl: saved.centralUrl,
    panelUrl: saved.panelUrl,
    updatedAt: saved.updatedAt,
  });

  return {
    config,
    token: () => saved.token,
    async save(update, now, centralUrlOverride) {
      const nextCentral = centralUrlOverride ?? update.centralUrl;
      // A token belongs to the central service that issued it: keep it only for the same one.
      const token = update.token ?? (nextCentral === saved.centralUrl ? saved.token : undefined);
      const next: SavedTerminalState = {
        id,
        kind,
        centralUrl: nextCentral,
        panelUrl: update.panelUrl ?? saved.panelUrl,
        ...(token ? { token } : {}),
        updatedAt: now.toISOString(),
      };
      await file.save(next);
      saved = next;
      return config();
    },
  };
}
