import { createHash } from 'node:crypto';
import {
  REDACTED,
  REPORT_UNSAFE_CHARACTERS,
  redactSecretShapes,
  type HandoverReport,
  type ReportEvidence,
} from '@svc/shared';
import { maskId, type LayerResult } from '../acceptance/layers.js';
import { reportWords, type ReportWords } from './words.js';

export type { HandoverReport };

export interface ReportMeta {
  release: string;
  host: string;
  centralUrl: string;
  technician: string;
  site: string;
  createdAt: string;
}

/** Values the console itself handled (a password, a key, a cookie) shorter than this are not hunted for. */
const MIN_KNOWN_SECRET = 4;

/**
 * Makes a text safe for a report: every value the console handled as a secret is cut out
 * wherever it appears, then anything shaped like a credential or an encoded blob, and control
 * and text-direction characters (a note's line breaks, a right-to-left override) become spaces.
 */
export function redact(text: string, known: readonly string[] = []): string {
  let out = text;
  const secrets = [...new Set(known)]
    .filter((s) => s.length >= MIN_KNOWN_SECRET)
    .sort((a, b) => b.length - a.length);
  for (const secret of secrets) out = out.split(secret).join(REDACTED);
  return maskIdNumbers(redactSecretShapes(out)).replace(REPORT_UNSAFE_CHARACTERS, ' ');
}

/**
 * ID-number-shaped text anyone typed (a note, a name): a Chinese ID number (15 or 18
 * characters, the last may be X) or any run of 15 or more digits keeps only its last 4, as the
 * console's own evidence shows a person's ID number. Shorter numbers (dates, ports, counts,
 * the sync test person's 14-digit stamp) stay.
 */
export function maskIdNumbers(text: string): string {
  return text.replace(/(?<!\d)\d{14,}[\dXx](?![\dA-Za-z])/g, (id) => maskId(id));
}

type ReportLayerSource = Pick<
  LayerResult,
  'id' | 'title' | 'status' | 'evidence' | 'manual' | 'manualPrompt' | 'ranAt' | 'error'
>;

export function buildReport(
  layersIn: readonly ReportLayerSource[],
  meta: ReportMeta,
  known: readonly string[] = [],
): HandoverReport {
  const r = (text: string) => redact(text, known);
  const layers = layersIn.map((l) => ({
    id: l.id,
    title: r(l.title),
    status: l.status,
    ran: l.ranAt !== null,
    manualPrompt: l.manualPrompt === null ? null : r(l.manualPrompt),
    ranAt: l.ranAt,
    error: l.error === null ? null : r(l.error),
    evidence: l.evidence.map((e): ReportEvidence => ({
      label: r(e.label),
      value: r(e.value),
      ok: e.ok,
      ...(e.warning && { warning: true }),
      status: !e.ok ? 'failed' : e.warning ? 'warning' : 'passed',
    })),
    manual: l.manual && { who: r(l.manual.who), at: l.manual.at, note: r(l.manual.note) },
  }));
  const count = (s: string) => layers.filter((l) => l.status === s).length;
  return {
    kind: 'svc-handover-report',
    v: 2,
    meta: {
      release: r(meta.release),
      host: r(meta.host),
      centralUrl: r(meta.centralUrl),
      technician: r(meta.technician),
      site: r(meta.site),
      createdAt: meta.createdAt,
    },
    summary: {
      layers: layers.length,
      passed: count('passed'),
      failed: count('failed'),
      pending: count('pending'),
      notRun: layers.filter((l) => !l.ran).map((l) => l.title),
      warnings: layers.reduce((n, l) => n + l.evidence.filter((e) => e.warning).length, 0),
    },
    layers,
  };
}

/** The report file whose digest the central service records. */
export function reportJson(report: HandoverReport): string {
  return `${JSON.stringify(report, null, 2)}\n`;
}

export function sha256(text: string | Uint8Array): string {
  return createHash('sha256').update(text).digest('hex');
}

/** Why the site is not accepted (failed, waiting, not run), each part in the words given. */
function shortfalls(report: HandoverReport, w: ReportWords): string[] {
  const s = report.summary;
  const title = (l: HandoverReport['layers'][number]) => w.layerTitle(l.id, l.title);
  const failed = report.layers.filter((l) => l.status === 'failed').map(title);
  const waiting = report.layers.filter((l) => l.status === 'pending' && l.ran).map(title);
  // The summary names layers not run by title (the JSON's own words): translated by their id.
  const notRun = s.notRun.map((t) => {
    const layer = report.layers.find((l) => l.title === t);
    return layer ? title(layer) : t;
  });
  return [
    failed.length > 0 ? w.failedList(failed) : null,
    waiting.length > 0 ? w.pendingList(waiting) : null,
    notRun.length > 0 ? w.notRunList(notRun) : null,
  ].filter((p): p is string => p !== null);
}

/** "6/8 layers passed; failed: Data, Sync; not run: Recognition loop", in the words given. */
export function resultLine(report: HandoverReport, w: ReportWords = reportWords()): string {
  const s = report.summary;
  return [
    w.result(s.passed, s.layers),
    ...shortfalls(report, w),
    ...(s.warnings > 0 ? [w.warningCount(s.warnings)] : []),
  ].join(w.partSeparator);
}

/** The report's head, label and value, as the HTML and the PDF both print it. */
export function reportFacts(
  report: HandoverReport,
  w: ReportWords = reportWords(),
): [string, string][] {
  const m = report.meta;
  const f = w.fields;
  return [
    [f.site, m.site],
    [f.release, m.release],
    [f.host, m.host],
    [f.centralUrl, m.centralUrl],
    [f.date, w.when(m.createdAt)],
    [f.technician, m.technician],
    [f.result, resultLine(report, w)],
  ];
}

/**
 * Whether the report hands the site over (every layer passed), and what a signature under it
 * confirms: a failed acceptance is never presented for signature as an accepted one.
 */
export function verdict(
  report: HandoverReport,
  w: ReportWords = reportWords(),
): { accepted: boolean; line: string; intro: string } {
  const missing = shortfalls(report, w);
  const accepted = missing.length === 0 && report.summary.passed === report.summary.layers;
  // Accepted with warnings is its own verdict: a signature never reads as "all clean" over one.
  const warnings = report.summary.warnings;
  return {
    accepted,
    line: w.verdictLine(
      !accepted
        ? w.verdict.notAccepted
        : warnings > 0
          ? w.verdict.acceptedWithWarnings(warnings)
          : w.verdict.accepted,
      resultLine(report, w),
    ),
    intro: accepted
      ? w.signatureIntroAccepted(warnings)
      : w.signatureIntroNotAccepted(missing.join(w.partSeparator)),
  };
}

/**
 * The report as printed in the words given: "[redacted]" (the JSON's marker, kept there) in the
 * print's language.
 */
export function printed(report: HandoverReport, w: ReportWords): HandoverReport {
  if (w.redacted === REDACTED) return report;
  return JSON.parse(
    JSON.stringify(report).split(REDACTED).join(JSON.stringify(w.redacted).slice(1, -1)),
  ) as HandoverReport;
}

/** The mark a fact gets in every rendering: a warning is never a tick. */
export function evidenceMark(e: ReportEvidence): 'ok' | 'warning' | 'failed' {
  return !e.ok ? 'failed' : e.warning ? 'warning' : 'ok';
}

/**
 * A layer's result as the report prints it, and its colour: a layer that passed with a warning
 * among its facts says so (as the console does), never a plain green "passed".
 */
export function layerResultShown(
  layer: HandoverReport['layers'][number],
  w: ReportWords,
): { text: string; tone: 'ok' | 'warning' | 'failed' | 'pending' } {
  if (!layer.ran) return { text: w.status.notRun, tone: 'pending' };
  if (layer.status !== 'passed') return { text: w.status[layer.status], tone: layer.status };
  return layer.evidence.some((e) => evidenceMark(e) === 'warning')
    ? { text: w.status.passedWithWarning, tone: 'warning' }
    : { text: w.status.passed, tone: 'ok' };
}
