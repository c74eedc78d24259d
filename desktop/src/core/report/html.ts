import type { HandoverReport } from '@svc/shared';
import { evidenceMark, layerResultShown, printed, reportFacts, verdict } from './report.js';
import { reportWords, type ReportRecord, type ReportWords } from './words.js';

const esc = (s: string) =>
  s.replace(
    /[&<>"']/g,
    (ch) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[ch] ?? ch,
  );

/**
 * Ids and other hyphenated tokens (ENR-P, DSP-CLONE, dates) in escaped text, kept whole: a
 * browser would otherwise wrap "DSP-" and "CLONE" onto two lines.
 */
const HYPHENATED = /[A-Za-z0-9][\w.:/]*(?:-[\w.:/]+)+/g;
const whole = (s: string) => esc(s).replace(HYPHENATED, '<span class="id">$&</span>');

const MARK = { ok: '✔', warning: '⚠', failed: '✘' } as const;

/** The signature block, under the verdict it signs (never "accepted" for a failed acceptance). */
function signatures(report: HandoverReport, w: ReportWords): string {
  const v = verdict(report, w);
  const boxes = w.signatureRoles
    .map(
      (role, i) =>
        `<div><h3>${esc(role)}</h3>${w.signatureFields
          .map(
            (field, j) =>
              `<p>${esc(field)}: ${i === 0 && j === 0 ? esc(report.meta.technician) : ''}</p>`,
          )
          .join('')}</div>`,
    )
    .join('');
  return `<section><h2>${esc(w.signatures)}</h2>
<p class="${v.accepted ? 'passed' : 'failed'}"><strong>${esc(v.line)}</strong></p>
<p>${esc(v.intro)}</p><div class="sign">${boxes}</div></section>`;
}

/** A self-contained HTML page: inline styles, no script, no outside resource. */
export function reportHtml(
  report: HandoverReport,
  digest: string,
  w: ReportWords = reportWords(),
  record: ReportRecord | null = null,
): string {
  report = printed(report, w);
  const m = report.meta;
  const v = verdict(report, w);
  const sections = report.layers
    .map((l) => {
      const shown = layerResultShown(l, w);
      const rows = l.evidence
        .map((e) => {
          const mark = evidenceMark(e);
          return `<tr><th>${whole(e.label)}</th><td>${whole(e.value)}</td><td class="${mark}">${MARK[mark]} ${w.mark[mark]}</td></tr>`;
        })
        .join('');
      return `<section><h2>${esc(w.layerTitle(l.id, l.title))} — <span class="${shown.tone === 'ok' ? 'passed' : shown.tone}">${esc(shown.text)}</span></h2>
${rows ? `<table><thead><tr><th>${w.columns.check}</th><th>${w.columns.evidence}</th><th>${w.columns.result}</th></tr></thead><tbody>${rows}</tbody></table>` : ''}
${l.ran ? '' : `<p class="pending">${w.notRunNote}</p>`}
${l.manual ? `<p>${whole(w.confirmedByHand(l.manual.who, w.when(l.manual.at), l.manual.note))}</p>` : ''}
${l.error ? `<p class="failed">${whole(w.error(l.error))}</p>` : ''}</section>`;
    })
    .join('\n');
  const facts = reportFacts(report, w);
  return `<!doctype html>
<html lang="${w.lang}"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><title>${w.reportTitle} — ${esc(m.site)}</title>
<style>body{font:14px/1.4 system-ui,sans-serif;max-width:60em;margin:2em auto;padding:0 1em;overflow-wrap:break-word}
.id{white-space:nowrap}.digest{overflow-wrap:anywhere}
table{border-collapse:collapse;width:100%}th,td{text-align:left;padding:.2em .8em .2em 0;vertical-align:top;border-bottom:1px solid #ddd}
td.ok,td.warning,td.failed{white-space:nowrap}
@media (max-width:40em){body{margin:1em auto}table,tbody,tr,th,td{display:block}thead{display:none}
tr{border-bottom:1px solid #ddd;padding:.3em 0}th,td{border:0;padding:.1em 0}}
.sign{display:flex;gap:2em;flex-wrap:wrap}.sign div{border:1px solid #000;padding:.5em 1em;flex:1;min-width:14em}
.sign p{border-bottom:1px solid #000;padding-top:1.2em}.ok,.passed{color:#1b5e20}.failed{color:#b71c1c}.warning,.pending{color:#8d6e00}</style></head>
<body><h1>${w.reportTitle}</h1>
<p class="${v.accepted ? 'passed' : 'failed'}"><strong>${esc(v.line)}</strong></p>
<dl>${facts.map(([k, v]) => `<dt>${esc(k)}</dt><dd>${whole(v)}</dd>`).join('')}</dl>
${sections}
<p class="digest${record && !record.recorded ? ' failed' : ''}">${esc(w.digestRecord(digest, record))}</p>
${signatures(report, w)}
</body></html>
`;
}
