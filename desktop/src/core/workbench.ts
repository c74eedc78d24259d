import { hostname } from 'node:os';
import {
  LAYERS,
  layerStatus,
  type AcceptanceState,
  type LayerId,
  type LayerResult,
  type ManualConfirmation,
} from './acceptance/layers.js';
import { runLayer, type LayerInput } from './acceptance/runner.js';
import { CentralClient } from './clients/central-client.js';
import type { TerminalClient } from './clients/terminal-client.js';
import type { Clock } from './clock.js';
import { pushWithProof, type PushResult } from './push/push.js';
import { reportPdf } from './report/pdf.js';
import {
  buildReport,
  reportHtml,
  reportJson,
  sha256,
  type HandoverReport,
} from './report/report.js';
import type { TerminalEntry } from './terminal-directory.js';

export interface CentralState {
  url: string | null;
  user: { username: string; role: string } | null;
  heartbeat: { state: 0 | 1; version: string; responseTimeMs: number } | null;
  error: string | null;
}

export interface PushRequestInput {
  ids: string[];
  centralUrl: string;
  panelUrl?: string | undefined;
  key?: string | undefined;
}

export interface ReportFile {
  filename: string;
  mime: string;
  base64: string;
}

const why = (err: unknown) => (err instanceof Error ? err.message : String(err));

/**
 * The technician's session with one central service: its address, the sign-in (the session
 * cookie in memory; the password is never kept), the pushes with their proof, the acceptance
 * layers and the handover report.
 */
export class Workbench {
  #central: CentralClient | null = null;
  #centralError: string | null = null;
  #pushes: PushResult[] = [];
  #layers: LayerResult[] = LAYERS.map((l) => ({
    id: l.id,
    title: l.title,
    manualPrompt: l.manual,
    status: 'pending',
    evidence: [],
    manual: null,
    ranAt: null,
    error: null,
  }));
  #report: {
    json: string;
    report: HandoverReport;
    sha256: string;
    recordedAt: string | null;
    recordError: string | null;
  } | null = null;

  constructor(
    private readonly deps: {
      clock: Clock;
      terminalClient: TerminalClient;
      terminals: () => TerminalEntry[];
      release: string;
      checkinTimeoutMs?: number;
      siteUrl?: string;
      probe?: () => Promise<unknown>;
    },
  ) {}

  async centralState(): Promise<CentralState> {
    const c = this.#central;
    if (!c) return { url: null, user: null, heartbeat: null, error: this.#centralError };
    let heartbeat: CentralState['heartbeat'] = null;
    let error: string | null = null;
    try {
      const hb = (await c.heartbeat()).value;
      heartbeat = { state: hb.state, version: hb.version, responseTimeMs: hb.responseTimeMs };
    } catch (err) {
      error = why(err);
    }
    return {
      url: c.baseUrl,
      user: c.user && { username: c.user.username, role: c.user.role },
      heartbeat,
      error,
    };
  }

  async setCentral(url: string): Promise<CentralState> {
    await this.#central?.signOut();
    this.#central = null;
    this.#centralError = null;
    try {
      this.#central = new CentralClient(url);
    } catch (err) {
      this.#centralError = why(err);
    }
    return this.centralState();
  }

  async signIn(username: string, password: string): Promise<CentralState> {
    if (!this.#central) throw new Error('set the central address first');
    await this.#central.signIn(username, password);
    return this.centralState();
  }

  async signOut(): Promise<CentralState> {
    await this.#central?.signOut();
    return this.centralState();
  }

  async push(request: PushRequestInput): Promise<PushResult[]> {
    const known = new Map(this.deps.terminals().map((t) => [t.id, t]));
    const results = await Promise.all(
      request.ids.map(async (id): Promise<PushResult | null> => {
        const t = known.get(id);
        if (!t) return null;
        // The panel address goes to displays only.
        const panelUrl = t.kind === 'display' ? request.panelUrl : undefined;
        return pushWithProof(
          {
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
            ...(request.key && { key: request.key }),
          },
        );
      }),
    );
    const done = results.filter((r): r is PushResult => r !== null);
    this.#pushes.push(...done);
    return done;
  }

  pushes(): PushResult[] {
    return [...this.#pushes];
  }

  acceptance(): AcceptanceState {
    return {
      layers: this.#layers.map((l) => ({ ...l, evidence: [...l.evidence] })),
      report: this.#report && {
        sha256: this.#report.sha256,
        recordedAt: this.#report.recordedAt,
        recordError: this.#report.recordError,
        createdAt: this.#report.report.meta.createdAt,
      },
    };
  }

  #layer(id: LayerId): LayerResult {
    const layer = this.#layers.find((l) => l.id === id);
    if (!layer) throw new Error(`unknown layer ${id}`);
    return layer;
  }

  async runLayer(id: LayerId, input: LayerInput): Promise<AcceptanceState> {
    const layer = this.#layer(id);
    const central = this.#central;
    layer.ranAt = new Date(this.deps.clock.now()).toISOString();
    layer.error = null;
    layer.evidence = [];
    if (!central) {
      layer.error = 'set the central address first';
    } else {
      try {
        layer.evidence = await runLayer(
          {
            central,
            siteUrl: this.deps.siteUrl ?? central.baseUrl,
            terminals: this.deps.terminals,
            pushes: () => this.pushes(),
            terminalClient: this.deps.terminalClient,
            sleep: (ms) => new Promise((resolve) => setTimeout(resolve, ms)),
            now: () => this.deps.clock.now(),
          },
          id,
          input,
        );
      } catch (err) {
        layer.error = why(err);
      }
    }
    layer.status = layerStatus(layer);
    return this.acceptance();
  }

  confirmLayer(id: LayerId, confirmation: Omit<ManualConfirmation, 'at'>): AcceptanceState {
    const layer = this.#layer(id);
    layer.manual = { ...confirmation, at: new Date(this.deps.clock.now()).toISOString() };
    layer.status = layerStatus(layer);
    return this.acceptance();
  }

  /** Builds the handover report and records its digest at the central service. */
  async finish(meta: { technician: string; site: string }): Promise<AcceptanceState> {
    const central = this.#central;
    const report = buildReport(this.acceptance(), {
      release: this.deps.release,
      host: hostname(),
      centralUrl: central?.baseUrl ?? '',
      technician: meta.technician,
      site: meta.site,
      createdAt: new Date(this.deps.clock.now()).toISOString(),
    });
    const json = reportJson(report);
    const digest = sha256(json);
    this.#report = { json, report, sha256: digest, recordedAt: null, recordError: null };
    if (!central?.user) {
      this.#report.recordError =
        'not signed in: the digest could not be recorded at the central service';
    } else {
      try {
        const recorded = await central.recordReport({
          sha256: digest,
          title: `Acceptance of ${report.meta.site}`.slice(0, 200),
          layers: report.summary.layers,
          passed: report.summary.passed,
        });
        this.#report.recordedAt = recorded.value.at;
      } catch (err) {
        this.#report.recordError = why(err);
      }
    }
    return this.acceptance();
  }

  async reportFile(format: 'html' | 'json' | 'pdf'): Promise<ReportFile> {
    const r = this.#report;
    if (!r) throw new Error('no report yet: finish the acceptance first');
    const stamp = r.report.meta.createdAt.slice(0, 10);
    const name = `svc-handover-${stamp}`;
    if (format === 'json') {
      return {
        filename: `${name}.json`,
        mime: 'application/json',
        base64: Buffer.from(r.json).toString('base64'),
      };
    }
    if (format === 'html') {
      return {
        filename: `${name}.html`,
        mime: 'text/html',
        base64: Buffer.from(reportHtml(r.report, r.sha256)).toString('base64'),
      };
    }
    const pdf = await reportPdf(r.report, r.sha256);
    return { filename: `${name}.pdf`, mime: 'application/pdf', base64: pdf.toString('base64') };
  }
}
