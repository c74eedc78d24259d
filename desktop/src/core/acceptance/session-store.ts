import { createHash } from 'node:crypto';
import { mkdir, readFile, rename, writeFile } from 'node:fs/promises';
import { homedir } from 'node:os';
import path from 'node:path';
import { z } from 'zod';
import { reportEvidence } from '@svc/shared';
import type { PushResult } from '../push/push.js';
import { LANGUAGES, type Language } from '../language.js';
import { LAYER_IDS, type LayerResult, type ReportState } from './layers.js';

/**
 * One site's acceptance on disk, so a restart of the console (or of the laptop) resumes it:
 * the layers with their evidence and hand confirmations, the pushes with their proof, and the
 * last report. Nothing in it is a credential: every text was redacted when it was recorded,
 * and passwords, keys and cookies are never written.
 */
export interface SiteSession {
  centralUrl: string;
  layers: LayerResult[];
  pushes: PushResult[];
  report: { json: string; state: ReportState } | null;
}

const step = z.object({ ok: z.boolean(), detail: z.string(), skipped: z.boolean().optional() });
const pushResult = z.object({
  id: z.string(),
  kind: z.enum(['enrollment', 'display']),
  address: z.string(),
  port: z.number().int(),
  centralUrl: z.string(),
  panelUrl: z.string().nullable(),
  via: z.enum(['central', 'direct', 'none']),
  pushedAt: z.string(),
  saved: step,
  readBack: step.extend({
    config: z
      .object({
        id: z.string(),
        kind: z.enum(['enrollment', 'display']),
        centralUrl: z.string(),
        panelUrl: z.string(),
        updatedAt: z.string().nullable(),
      })
      .nullable(),
  }),
  checkedIn: step.extend({ at: z.string().nullable() }),
  ok: z.boolean(),
});
const layerResult = z.object({
  id: z.enum(LAYER_IDS),
  title: z.string(),
  manualPrompt: z.string().nullable(),
  status: z.enum(['pending', 'passed', 'failed']),
  evidence: z.array(reportEvidence),
  manual: z.object({ who: z.string(), at: z.string(), note: z.string() }).nullable(),
  ranAt: z.string().nullable(),
  error: z.string().nullable(),
});
const testPeopleFile = z.object({
  v: z.literal(1),
  centralUrl: z.string(),
  ids: z.array(z.string().max(100)).max(100),
});
const reportState = z.object({
  sha256: z.string(),
  createdAt: z.string(),
  technician: z.string(),
  site: z.string(),
  summary: z.object({
    layers: z.number(),
    passed: z.number(),
    failed: z.number(),
    pending: z.number(),
    warnings: z.number(),
    failedTitles: z.array(z.string()),
    notRun: z.array(z.string()),
    failedIds: z.array(z.string()).optional(),
    pendingIds: z.array(z.string()).optional(),
    notRunIds: z.array(z.string()).optional(),
  }),
  recorded: z.object({ sha256: z.string(), at: z.string(), by: z.string() }).nullable(),
  recordError: z.string().nullable(),
  outdated: z.string().nullable(),
  outdatedAt: z.string().nullable().optional(),
});
const siteFile = z.object({
  v: z.literal(1),
  centralUrl: z.string(),
  layers: z.array(layerResult),
  pushes: z.array(pushResult.loose()),
  report: z.object({ json: z.string(), state: reportState }).nullable(),
});
const lastFile = z.object({ v: z.literal(1), centralUrl: z.string() });
const settingsFile = z.object({ v: z.literal(1), language: z.enum(LANGUAGES).nullable() });

/** Where sessions live: CONSOLE_STATE_DIR, else the platform's per-user state directory. */
export function defaultStateDir(env: Record<string, string | undefined>): string {
  if (env.CONSOLE_STATE_DIR) return env.CONSOLE_STATE_DIR;
  if (process.platform === 'win32' && env.LOCALAPPDATA) {
    return path.join(env.LOCALAPPDATA, 'svc-console');
  }
  if (process.platform === 'darwin') {
    return path.join(homedir(), 'Library', 'Application Support', 'svc-console');
  }
  return path.join(env.XDG_STATE_HOME ?? path.join(homedir(), '.local', 'state'), 'svc-console');
}

/** Nothing worth keeping: no layer run or confirmed, no push, no report. */
export function isEmpty(session: SiteSession): boolean {
  return (
    session.pushes.length === 0 &&
    session.report === null &&
    session.layers.every((l) => l.ranAt === null && l.manual === null)
  );
}

export class SessionStore {
  constructor(readonly dir: string) {}

  #file(centralUrl: string): string {
    const key = createHash('sha256').update(centralUrl).digest('hex').slice(0, 24);
    return path.join(this.dir, 'sites', `${key}.json`);
  }

  /** Written whole to a new file, then renamed over the old one: a crash leaves either. */
  async #write(file: string, data: unknown): Promise<void> {
    await mkdir(path.dirname(file), { recursive: true, mode: 0o700 });
    const temp = `${file}.${process.pid}.tmp`;
    await writeFile(temp, `${JSON.stringify(data)}\n`, { mode: 0o600 });
    await rename(temp, file);
  }

  async #read<T>(file: string, schema: z.ZodType<T>): Promise<T | null> {
    let text: string;
    try {
      text = await readFile(file, 'utf8');
    } catch {
      return null;
    }
    try {
      const parsed = schema.safeParse(JSON.parse(text));
      return parsed.success ? parsed.data : null;
    } catch {
      return null;
    }
  }

  /**
   * Keeps a site's session. A session with nothing in it (no layer run, no push, no report) is
   * never written: opening a site, or a mistyped address, must not replace what is on disk. A
   * file this release cannot read is set aside under a new name before it is replaced.
   */
  async save(session: SiteSession): Promise<void> {
    if (isEmpty(session)) return;
    const file = this.#file(session.centralUrl);
    if ((await this.#fileState(file, session.centralUrl)) === 'unreadable') {
      await rename(file, `${file.slice(0, -'.json'.length)}.unreadable-${Date.now()}.json`);
    }
    await this.#write(file, { v: 1, ...session });
    await this.rememberCentral(session.centralUrl);
  }

  /** Makes `centralUrl` the site a restart opens (a central service that answered, or has a session). */
  async rememberCentral(centralUrl: string): Promise<void> {
    await this.#write(path.join(this.dir, 'last-central.json'), { v: 1, centralUrl });
  }

  async #fileState(file: string, centralUrl: string): Promise<'absent' | 'ok' | 'unreadable'> {
    const exists = await readFile(file).then(
      () => true,
      () => false,
    );
    if (!exists) return 'absent';
    const data = await this.#read(file, siteFile);
    return data && data.centralUrl === centralUrl ? 'ok' : 'unreadable';
  }

  async load(centralUrl: string): Promise<SiteSession | null> {
    const data = await this.#read(this.#file(centralUrl), siteFile);
    if (!data || data.centralUrl !== centralUrl) return null;
    return data;
  }

  /**
   * Test people the synchronization check created at `centralUrl` and has not seen erased yet:
   * written before the check goes on, so a console stopped in the middle of it erases them at
   * the next check instead of leaving a face with access at the site.
   */
  async testPeople(centralUrl: string): Promise<string[]> {
    const data = await this.#read(this.#testPeopleFile(centralUrl), testPeopleFile);
    return data && data.centralUrl === centralUrl ? data.ids : [];
  }

  async setTestPeople(centralUrl: string, ids: string[]): Promise<void> {
    await this.#write(this.#testPeopleFile(centralUrl), { v: 1, centralUrl, ids });
  }

  #testPeopleFile(centralUrl: string): string {
    return this.#file(centralUrl).replace(/\.json$/, '.test-people.json');
  }

  /** The technician's settings (the language chosen), or null when none were kept. */
  async loadSettings(): Promise<{ language: Language | null } | null> {
    const data = await this.#read(path.join(this.dir, 'settings.json'), settingsFile);
    return data && { language: data.language };
  }

  async saveSettings(settings: { language: Language | null }): Promise<void> {
    await this.#write(path.join(this.dir, 'settings.json'), { v: 1, ...settings });
  }

  /** The central service of the session the console was in when it stopped. */
  async lastCentral(): Promise<string | null> {
    return (
      (await this.#read(path.join(this.dir, 'last-central.json'), lastFile))?.centralUrl ?? null
    );
  }
}
