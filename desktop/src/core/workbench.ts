import { hostname } from 'node:os';
import { ErrorCode, handoverReport, type HandoverReport, type PushRequest } from '@svc/shared';
import {
  LAYERS,
  layerStatus,
  type AcceptanceState,
  type LayerId,
  type LayerResult,
  type ManualConfirmation,
  type ReportState,
} from './acceptance/layers.js';
import { runLayer, type LayerInput } from './acceptance/runner.js';
import type { SessionStore } from './acceptance/session-store.js';
import { CentralClient } from './clients/central-client.js';

export type { CentralState };
import { ReachError } from './clients/http.js';
import { measureCentral, type CentralState } from './central-state.js';
import type { TerminalClient } from './clients/terminal-client.js';
import type { Clock } from './clock.js';
import { pushWithProof, type PushResult, type PushStep, type Step } from './push/push.js';
import { reportHtml } from './report/html.js';
import { reportPdf } from './report/pdf.js';
import { reportWords } from './report/words.js';
import type { Language } from './language.js';
import { language, t } from './i18n.js';
import { buildReport, redact, reportJson, sha256, verdict } from './report/report.js';
import { OUTDATED, TERMINAL_WORDS, changedSince, notRunRefused, confirmRefusal } from './texts.js';
import type { TerminalEntry } from './terminal-directory.js';

/** What the technician asks to push (the shared rule the IPC and the push panel check). */
export type PushRequestInput = PushRequest;

/** One terminal of a running push: the step it is at, and since when. */
export interface PushProgress {
  id: string;
  /** `done` once its proof is made (`ok` says how it ended), else the step it is at. */
  step: PushStep | 'done';
  ok: boolean | null;
  /** Through the central service, or straight to the terminal. */
  direct: boolean;
  /** Seconds at this step so far. */
  seconds: number;
  /** How long the check-in is waited for, in seconds. */
  checkinTimeoutS: number;
}

export interface ReportFile {
  filename: string;
  mime: string;
  base64: string;
}

const why = (err: unknown) => (err instanceof Error ? err.message : String(err));
const freshLayers = (): LayerResult[] =>
  LAYERS.map((l) => ({
    id: l.id,
    title: l.title,
    manualPrompt: l.manual,
    status: 'pending',
    evidence: [],
    manual: null,
    ranAt: null,
    error: null,
  }));

/** A site's name as part of a file name: letters and digits of any script, the rest a dash. */
const fileNamePart = (text: string) =>
  text
    .normalize('NFKC')
    .replace(/[^\p{L}\p{N}]+/gu, '-')
    .replace(/^-+|-+$/g, '')
    .slice(0, 40) || 'site';

/**
 * `svc-handover-<site>-<date>-<verdict>-<digest 8>`: two reports (two sites, two runs the
 * same day, another verdict) never share a name; the HTML and PDF add their language.
 */
export function reportFileName(report: HandoverReport, digest: string): string {
  const v = verdict(report);
  const word = !v.accepted ? 'not-accepted' : report.summary.warnings > 0 ? 'warnings' : 'accepted';
  const date = report.meta.createdAt.slice(0, 10);
  return `svc-handover-${fileNamePart(report.meta.site)}-${date}-${word}-${digest.slice(0, 8)}`;
}

/**
 * The technician's session with one central service: its address, the sign-in (the session
 * cookie in memory; the password is never kept), the pushes with their proof, the acceptance
 * layers and the handover report. The acceptance part is kept on disk per central service
 * (`store`), so a restart resumes it; credentials stay in memory only.
 */
export class Workbench {
  #central: CentralClient | null = null;
  /** An address typed that cannot be called (no client was made for it). */
  #badAddress: string | null = null;
  #codeRequired = false;
  #refusal: CentralState['refusal'] = null;
  #pushes: PushResult[] = [];
  /** The terminals of pushes still running, by id: where each is (kept in memory only). */
  #progress = new Map<
    string,
    { step: PushStep | 'done'; ok: boolean | null; since: number; direct: boolean }
  >();
  #layers: LayerResult[] = freshLayers();
  #report: { json: string; state: ReportState } | null = null;
  /** Every secret value the console handled in this run; cut out of anything recorded. */
  #secrets = new Set<string>();
  #saving: Promise<void> = Promise.resolve();

  constructor(
    private readonly deps: {
      clock: Clock;
      terminalClient: TerminalClient;
      terminals: () => TerminalEntry[];
      /** Terminals of this session gone offline (their last announce), for the layers. */
      offline?: () => TerminalEntry[];
      release: string;
      checkinTimeoutMs?: number;
      siteUrl?: string;
      probe?: () => Promise<unknown>;
      store?: SessionStore;
    },
  ) {}

  /** Opens the session the console was in when it last stopped, if any. */
  async resume(): Promise<void> {
    const url = await this.deps.store?.lastCentral();
    if (url && !this.#central) await this.setCentral(url);
  }

  #known(): string[] {
    return [...this.#secrets, ...(this.#central?.secretValues() ?? [])];
  }

  #redact(text: string): string {
    return redact(text, this.#known());
  }

  /** Writes the acceptance session; writes are queued so the last state is the one kept. */
  #save(): Promise<void> {
    const store = this.deps.store;
    const url = this.#central?.baseUrl;
    if (!store || !url) return Promise.resolve();
    const session = {
      centralUrl: url,
      layers: this.#layers,
      pushes: this.#pushes,
      report: this.#report,
    };
    this.#saving = this.#saving.then(() => store.save(structuredClone(session)));
    return this.#saving;
  }

  async #load(url: string): Promise<void> {
    const saved = await this.deps.store?.load(url);
    this.#layers = saved?.layers ?? freshLayers();
    this.#pushes = saved?.pushes ?? [];
    this.#report = saved?.report ?? null;
  }

  centralState(): Promise<CentralState> {
    return measureCentral(this.#central, {
      now: this.deps.clock.now(),
      badAddress: this.#badAddress,
      refusal: this.#refusal,
      codeRequired: this.#codeRequired,
    });
  }

  async changePassword(currentPassword: string, newPassword: string): Promise<CentralState> {
    if (!this.#central?.user) throw new Error(t('errors.signInFirst'));
    // Both passwords are values the console handled: never in a report.
    this.#secrets.add(currentPassword);
    this.#secrets.add(newPassword);
    try {
      await this.#central.changePassword(currentPassword, newPassword);
    } catch (err) {
      this.#noteRefusal(err);
      throw err;
    }
    // The header says the latest truth: a refusal before this success no longer holds.
    this.#refusal = null;
    return this.centralState();
  }

  /** A refusal by the central service (4xx) is kept for the live header until a sign-in. */
  #noteRefusal(err: unknown, reason = why(err)): void {
    if (err instanceof ReachError && err.status !== null && err.status >= 400 && err.status < 500) {
      this.#refusal = {
        reason: this.#redact(reason),
        at: new Date(this.deps.clock.now()).toISOString(),
        code: err.code,
        params: err.facts.params ?? {},
      };
    }
  }

  #forgetSession(): void {
    for (const value of this.#central?.secretValues() ?? []) this.#secrets.add(value);
  }

  async setCentral(url: string): Promise<CentralState> {
    this.#forgetSession();
    this.#codeRequired = false;
    this.#refusal = null;
    await this.#central?.signOut();
    this.#central = null;
    this.#badAddress = null;
    try {
      this.#central = new CentralClient(url);
    } catch {
      this.#badAddress = this.#redact(url);
    }
    // Each central service (site) has its own acceptance session. Nothing is written here: a
    // site becomes the one a restart opens once its central service answers, or once there is
    // progress to keep (a mistyped address must not replace the site in progress).
    if (this.#central) await this.#load(this.#central.baseUrl);
    const state = await this.centralState();
    if (state.url && state.heartbeat) await this.deps.store?.rememberCentral(state.url);
    return state;
  }

  async signIn(username: string, password: string, code?: string): Promise<CentralState> {
    if (!this.#central) throw new Error(t('errors.centralFirst'));
    // Kept for this run only, to keep it out of every report even if it is typed in a note.
    this.#secrets.add(password);
    if (code !== undefined) this.#secrets.add(code);
    this.#forgetSession();
    try {
      await this.#central.signIn(username, password, code);
      this.#codeRequired = false;
      this.#refusal = null;
    } catch (err) {
      // Not a failure: the password was right and the account has a second factor to ask for.
      if (!(err instanceof ReachError) || err.code !== ErrorCode.twoFactorRequired) {
        this.#noteRefusal(err);
        throw err;
      }
      this.#codeRequired = true;
      // The password was right: an earlier refusal is no longer the latest truth.
      this.#refusal = null;
    }
    return this.centralState();
  }

  async signOut(): Promise<CentralState> {
    this.#forgetSession();
    this.#codeRequired = false;
    await this.#central?.signOut();
    return this.centralState();
  }

  async push(request: PushRequestInput): Promise<PushResult[]> {
    for (const key of Object.values(request.keys ?? {})) this.#secrets.add(key);
    const known = new Map(this.deps.terminals().map((t) => [t.id, t]));
    const direct = request.direct === true;
    const mark = (id: string, step: PushStep | 'done', ok: boolean | null = null) =>
      this.#progress.set(id, { step, ok, since: this.deps.clock.now(), direct });
    const ids = request.ids.filter((id) => known.has(id));
    for (const id of ids) mark(id, 'saving');
    const results = await Promise.all(
      request.ids.map(async (id): Promise<PushResult | null> => {
        const t = known.get(id);
        if (!t) return null;
        // The panel address goes to displays only.
        const panelUrl = t.kind === 'display' ? request.panelUrl : undefined;
        const result = await pushWithProof(
          {
            onStep: (step) => mark(id, step),
            terminals: this.deps.terminalClient,
            central: this.#central,
            clock: this.deps.clock,
            ...(this.deps.probe && { probe: this.deps.probe }),
            ...(this.deps.checkinTimeoutMs !== undefined && {
              checkinTimeoutMs: this.deps.checkinTimeoutMs,
            }),
          },
          t,
          {
            centralUrl: request.centralUrl,
            ...(panelUrl !== undefined && { panelUrl }),
            ...(request.keys?.[id] && { key: request.keys[id] }),
            ...(request.direct && { direct: true }),
          },
        ).catch((err: unknown) => {
          mark(id, 'done', false);
          throw err;
        });
        mark(id, 'done', result.ok);
        return result;
      }),
    ).finally(() => {
      for (const id of ids) this.#progress.delete(id);
    });
    const done = results.filter((r): r is PushResult => r !== null);
    // The central service's refusal goes to the live header, as a refused sign-in does.
    const refused = done.find((r) => r.refusal !== undefined);
    // A push the central service took is a later truth than its earlier refusal.
    if (!refused && done.some((r) => r.via === 'central')) this.#refusal = null;
    if (refused?.refusal) {
      const code = refused.saved.errorDetail?.code ?? null;
      this.#refusal = {
        reason: this.#redact(refused.refusal),
        at: new Date(this.deps.clock.now()).toISOString(),
        // A conflict's words are the console's own (the terminal's id): kept as said.
        ...(code !== null && code !== 'conflict' && { code, params: {} }),
      };
    }
    const kept = done.map((p) => ({
      ...p,
      ...(p.refusal !== undefined && { refusal: this.#redact(p.refusal) }),
      saved: this.#redactStep(p.saved),
      readBack: this.#redactStep(p.readBack),
      checkedIn: this.#redactStep(p.checkedIn),
    }));
    this.#pushes.push(...kept);
    await this.#save();
    return kept;
  }

  /** A step as kept: its words and its code's values without any secret the console handled. */
  #redactStep<S extends Step>(step: S): S {
    const d = step.errorDetail;
    return {
      ...step,
      detail: this.#redact(step.detail),
      ...(d && {
        errorDetail: {
          code: d.code,
          message: this.#redact(d.message),
          params: Object.fromEntries(
            Object.entries(d.params).map(([k, v]) => [
              k,
              typeof v === 'string' ? this.#redact(v) : v,
            ]),
          ),
        },
      }),
    };
  }

  /** Where each terminal of the pushes still running is: its step, or done. */
  pushProgress(): PushProgress[] {
    const now = this.deps.clock.now();
    return [...this.#progress]
      .map(([id, p]) => ({
        id,
        step: p.step,
        ok: p.ok,
        direct: p.direct,
        seconds: Math.max(0, Math.floor((now - p.since) / 1000)),
        checkinTimeoutS: Math.round((this.deps.checkinTimeoutMs ?? 20_000) / 1000),
      }))
      .sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
  }

  pushes(): PushResult[] {
    return [...this.#pushes];
  }

  /**
   * A proof the terminal configuration layer counted stops counting once its terminal announces
   * another central address: the layer's fact says so (and fails), and a report made on it is
   * outdated. True when something changed (the caller saves).
   */
  #reviewProofs(): boolean {
    const layer = this.#layers.find((l) => l.id === 'terminals');
    if (!layer || layer.ranAt === null) return false;
    const heard = new Map(this.deps.terminals().map((term) => [term.id, term]));
    const changed: string[] = [];
    layer.evidence = layer.evidence.map((e) => {
      const terminal = heard.get(e.label);
      if (!e.ok || !terminal) return e;
      const p = [...this.#pushes].reverse().find((r) => r.id === terminal.id);
      if (!p?.ok || !changedSince(terminal, p)) return e;
      changed.push(terminal.id);
      const value = TERMINAL_WORDS.changedSince(p.centralUrl, terminal.central ?? '');
      return { label: e.label, value: this.#redact(value), ok: false };
    });
    if (changed.length === 0) return false;
    layer.status = layerStatus(layer);
    this.#outdate(OUTDATED.proofChanged(changed));
    return true;
  }

  /** The terminal list changed: a proof the layers relied on may no longer count. */
  async reviewProofs(): Promise<void> {
    if (this.#reviewProofs()) await this.#save();
    else await this.#saving;
  }

  acceptance(): AcceptanceState {
    if (this.#reviewProofs()) void this.#save();
    return {
      layers: this.#layers.map((l) => ({ ...l, evidence: [...l.evidence] })),
      report: this.#report && structuredClone(this.#report.state),
    };
  }

  #layer(id: LayerId): LayerResult {
    const layer = this.#layers.find((l) => l.id === id);
    if (!layer) throw new Error(`unknown layer ${id}`);
    return layer;
  }

  /** A change after Finish: the report no longer says what the layers say. */
  #outdate(reason: string): void {
    if (this.#report && this.#report.state.outdated === null) {
      this.#report.state.outdated = reason;
      this.#report.state.outdatedAt = new Date(this.deps.clock.now()).toISOString();
    }
  }

  async runLayer(id: LayerId, input: LayerInput): Promise<AcceptanceState> {
    const layer = this.#layer(id);
    const central = this.#central;
    layer.ranAt = new Date(this.deps.clock.now()).toISOString();
    layer.error = null;
    layer.evidence = [];
    if (!central) {
      layer.error = t('errors.centralFirst');
    } else {
      try {
        const evidence = await runLayer(
          {
            central,
            siteUrl: this.deps.siteUrl ?? central.baseUrl,
            terminals: this.deps.terminals,
            ...(this.deps.offline && { offline: this.deps.offline }),
            pushes: () => this.pushes(),
            terminalClient: this.deps.terminalClient,
            sleep: (ms) => new Promise((resolve) => setTimeout(resolve, ms)),
            now: () => this.deps.clock.now(),
            ...(this.deps.store && {
              testPeople: this.#testPeople(this.deps.store, central.baseUrl),
            }),
          },
          id,
          input,
        );
        layer.evidence = evidence.map((e) => ({
          ...e,
          label: this.#redact(e.label),
          value: this.#redact(e.value),
        }));
      } catch (err) {
        layer.error = this.#redact(why(err));
        this.#noteRefusal(err);
      }
    }
    // What a person confirmed stood on facts that no longer hold.
    if (layer.error !== null || !layer.evidence.every((e) => e.ok) || !layer.evidence.length) {
      layer.manual = null;
    }
    layer.status = layerStatus(layer);
    this.#outdate(OUTDATED.layerRun(layer.id));
    await this.#save();
    return this.acceptance();
  }

  #testPeople(store: SessionStore, url: string) {
    return {
      list: () => store.testPeople(url),
      set: (ids: string[]) => store.setTestPeople(url, ids),
    };
  }

  async confirmLayer(
    id: LayerId,
    confirmation: Omit<ManualConfirmation, 'at'>,
  ): Promise<AcceptanceState> {
    const layer = this.#layer(id);
    // A hand confirmation completes automated checks that held; it never covers a failure.
    const refused = confirmRefusal(layer);
    if (refused) throw new Error(refused);
    layer.manual = {
      who: this.#redact(confirmation.who),
      note: this.#redact(confirmation.note),
      at: new Date(this.deps.clock.now()).toISOString(),
    };
    layer.status = layerStatus(layer);
    this.#outdate(OUTDATED.confirmed(layer.id));
    await this.#save();
    return this.acceptance();
  }

  /**
   * Builds the handover report and has the central service keep it. Layers never run make
   * the call fail unless `withLayersNotRun` says the technician agreed to leave them out.
   */
  async finish(meta: {
    technician: string;
    site: string;
    withLayersNotRun?: boolean;
  }): Promise<AcceptanceState> {
    this.#reviewProofs();
    const notRun = this.#layers.filter((l) => l.ranAt === null).map((l) => l.id);
    if (notRun.length > 0 && !meta.withLayersNotRun) throw new Error(notRunRefused(notRun));
    const central = this.#central;
    const report = buildReport(
      this.#layers,
      {
        release: this.deps.release,
        host: hostname(),
        centralUrl: central?.baseUrl ?? '',
        technician: meta.technician,
        site: meta.site,
        createdAt: new Date(this.deps.clock.now()).toISOString(),
      },
      this.#known(),
    );
    const json = reportJson(report);
    const digest = sha256(json);
    const state: ReportState = {
      sha256: digest,
      createdAt: report.meta.createdAt,
      technician: report.meta.technician,
      site: report.meta.site,
      summary: {
        ...report.summary,
        failedTitles: report.layers.filter((l) => l.status === 'failed').map((l) => l.title),
        // By id as well, so the screens name them in the technician's language.
        failedIds: report.layers.filter((l) => l.status === 'failed').map((l) => l.id),
        pendingIds: report.layers.filter((l) => l.status === 'pending' && l.ran).map((l) => l.id),
        notRunIds: report.layers.filter((l) => !l.ran).map((l) => l.id),
      },
      recorded: null,
      recordError: null,
      outdated: null,
      outdatedAt: null,
    };
    this.#report = { json, state };
    await this.#record();
    await this.#save();
    return this.acceptance();
  }

  /**
   * Has the central service keep the report, or says truly why not: the central service not
   * answering (whatever the sign-in), not signed in, a refusal, or another digest.
   */
  async #record(): Promise<void> {
    const report = this.#report;
    if (!report) return;
    const { json, state } = report;
    const central = this.#central;
    state.recordError = null;
    const notAnswering = (reason: string) =>
      t('reportStep.notAnswering', { url: central?.baseUrl ?? '', reason });
    if (!central) {
      state.recordError = t('errors.centralFirst');
      return;
    }
    if (!central.user) {
      const now = await this.centralState();
      const silent =
        now.reach?.code === 'nothing_answers' || now.reach?.code === 'no_answer_in_time';
      // An svc central service withholding its state until a sign-in: a sign-in is what it needs.
      state.recordError =
        now.heartbeat || now.reach?.code === 'details_withheld'
          ? t('reportStep.notSignedIn')
          : silent || !now.reach
            ? notAnswering(this.#redact(now.error ?? t('errors.reach.other')))
            : // Something answered there, but not a central service able to take it: said so.
              t('reportStep.unusable', {
                url: central.baseUrl,
                reason: this.#redact(now.error ?? ''),
              });
      return;
    }
    try {
      const kept = (await central.uploadReport(json)).value;
      if (kept.sha256 !== state.sha256) {
        state.recordError = t('reportStep.digestMismatch', {
          ours: state.sha256,
          theirs: kept.sha256,
        });
      } else state.recorded = { sha256: kept.sha256, at: kept.recordedAt, by: kept.recordedBy };
      this.#refusal = null;
    } catch (err) {
      const answered = err instanceof ReachError && err.status !== null;
      state.recordError = answered ? this.#redact(why(err)) : notAnswering(this.#redact(why(err)));
      this.#noteRefusal(err);
    }
  }

  /** Records a finished report the central service does not keep yet (after it answers again). */
  async recordReport(): Promise<AcceptanceState> {
    await this.reviewProofs();
    const r = this.#report;
    if (!r) throw new Error(t('reportStep.noReport'));
    if (r.state.outdated !== null) throw new Error(OUTDATED.download());
    if (r.state.recorded === null) {
      await this.#record();
      await this.#save();
    }
    return this.acceptance();
  }

  async reportFile(
    format: 'html' | 'json' | 'pdf',
    lng: Language = language(),
  ): Promise<ReportFile> {
    await this.reviewProofs();
    const r = this.#report;
    if (!r) throw new Error(t('reportStep.noReport'));
    if (r.state.outdated !== null) throw new Error(OUTDATED.download());
    const report = handoverReport.parse(JSON.parse(r.json));
    const base = reportFileName(report, r.state.sha256);
    const name = `${base}-${lng}`;
    if (format === 'json') {
      // The JSON keeps English titles and stable keys: no language in its name.
      return {
        filename: `${base}.json`,
        mime: 'application/json',
        base64: Buffer.from(r.json).toString('base64'),
      };
    }
    if (format === 'html') {
      return {
        filename: `${name}.html`,
        mime: 'text/html',
        base64: Buffer.from(reportHtml(report, r.state.sha256, reportWords(lng), r.state)).toString(
          'base64',
        ),
      };
    }
    const pdf = await reportPdf(report, r.state.sha256, reportWords(lng), r.state);
    return { filename: `${name}.pdf`, mime: 'application/pdf', base64: pdf.toString('base64') };
  }
}
