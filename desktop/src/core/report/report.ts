import { createHash } from 'node:crypto';
import type { AcceptanceState, LayerResult } from '../acceptance/layers.js';

export interface ReportMeta {
  release: string;
  host: string;
  centralUrl: string;
  technician: string;
  site: string;
  createdAt: string;
}

export interface HandoverReport {
  kind: 'svc-handover-report';
  v: 1;
  meta: ReportMeta;
  summary: { layers: number; passed: number; failed: number; pending: number };
  layers: Pick<
    LayerResult,
    'id' | 'title' | 'status' | 'evidence' | 'manual' | 'manualPrompt' | 'ranAt' | 'error'
  >[];
}

const SECRET_PATTERNS: [RegExp, string][] = [
  [/(bearer\s+)[^\s,;]+/gi, '$1[redacted]'],
  [/((?:password|passwd|token|key|secret)\s*[=:]\s*)[^\s,;]+/gi, '$1[redacted]'],
  [/\/\/[^/@\s]+:[^/@\s]+@/g, '//[redacted]@'],
  // long base64 runs: a photo, a key or a token, never evidence
  [/[A-Za-z0-9+/_-]{48,}={0,2}/g, '[redacted]'],
];

/** Removes anything shaped like a credential or an encoded blob from a text. */
export function redact(text: string): string {
  let out = text;
  for (const [pattern, replacement] of SECRET_PATTERNS) out = out.replace(pattern, replacement);
  return out;
}

export function buildReport(state: AcceptanceState, meta: ReportMeta): HandoverReport {
  const layers = state.layers.map((l) => ({
    id: l.id,
    title: l.title,
    status: l.status,
    manualPrompt: l.manualPrompt,
    ranAt: l.ranAt,
    error: l.error === null ? null : redact(l.error),
    evidence: l.evidence.map((e) => ({ label: redact(e.label), value: redact(e.value), ok: e.ok })),
    manual: l.manual && { who: redact(l.manual.who), at: l.manual.at, note: redact(l.manual.note) },
  }));
  const count = (s: string) => layers.filter((l) => l.status === s).length;
  return {
    kind: 'svc-handover-report',
    v: 1,
    meta: {
      ...meta,
      centralUrl: redact(meta.centralUrl),
      technician: redact(meta.technician),
      site: redact(meta.site),
    },
    summary: {
      layers: layers.length,
      passed: count('passed'),
      failed: count('failed'),
      pending: count('pending'),
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

const esc = (s: string) =>
  s.replace(
    /[&<>"']/g,
    (ch) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[ch] ?? ch,
  );

/** A self-contained HTML page: inline styles, no script, no outside resource. */
export function reportHtml(report: HandoverReport, digest: string): string {
  const m = report.meta;
  const rows = report.layers
    .map(
      (l) => `<section><h2>${esc(l.title)} — <span class="${l.status}">${l.status}</span></h2>
<table><tbody>${l.evidence.map((e) => `<tr><td>${e.ok ? '✔' : '✘'}</td><th>${esc(e.label)}</th><td>${esc(e.value)}</td></tr>`).join('')}</tbody></table>
${l.manual ? `<p>Confirmed by hand by ${esc(l.manual.who)} at ${esc(l.manual.at)}${l.manual.note ? `: ${esc(l.manual.note)}` : ''}</p>` : ''}
${l.error ? `<p class="failed">${esc(l.error)}</p>` : ''}</section>`,
    )
    .join('\n');
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>svc handover report — ${esc(m.site)}</title>
<style>body{font:14px/1.4 system-ui,sans-serif;max-width:60em;margin:2em auto;padding:0 1em}
th{text-align:left;padding-right:1em}td{padding-right:1em;vertical-align:top}
.passed{color:#1b5e20}.failed{color:#b71c1c}.pending{color:#8d6e00}</style></head>
<body><h1>svc handover report</h1>
<dl><dt>Site</dt><dd>${esc(m.site)}</dd><dt>Release</dt><dd>${esc(m.release)}</dd><dt>Host</dt><dd>${esc(m.host)}</dd>
<dt>Central address</dt><dd>${esc(m.centralUrl)}</dd><dt>Date</dt><dd>${esc(m.createdAt)}</dd><dt>Technician</dt><dd>${esc(m.technician)}</dd>
<dt>Result</dt><dd>${report.summary.passed}/${report.summary.layers} layers passed</dd></dl>
${rows}
<p>SHA-256 of report.json: <code>${digest}</code> — recorded in the central audit log.</p>
</body></html>
`;
}
