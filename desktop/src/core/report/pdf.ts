import { createRequire } from 'node:module';
import path from 'node:path';
import PDFDocument from 'pdfkit';
import type { HandoverReport } from '@svc/shared';
import { reportWords, type ReportRecord, type ReportWords } from './words.js';
import { evidenceMark, layerResultShown, printed, reportFacts, verdict } from './report.js';

/**
 * Noto Sans (Simplified Chinese, with Latin) from an npm package as OpenType files pdfkit can
 * subset: a technician "Tess Tech 张" prints as typed, and only the glyphs used are embedded.
 */
function fontFile(name: 'Regular' | 'Bold'): string {
  const entry = createRequire(import.meta.url).resolve('@embedpdf/fonts-sc');
  return path.join(path.dirname(entry), '..', 'fonts', `NotoSansHans-${name}.otf`);
}

type Doc = PDFKit.PDFDocument;
const MARGIN = 50;
const FOOTER = 36;
const GREY = '#555555';
const COLOR = { ok: '#1b5e20', warning: '#8d6e00', failed: '#b71c1c', pending: '#8d6e00' };
/**
 * The marks the HTML uses (✔ ⚠ ✘) as the embedded font has them: it has ⚠ and ✓ but neither
 * ✔ nor ✘, which would print as empty boxes; the signature's "marked ⚠" must be true here too.
 */
const MARK = { ok: '✓', warning: '⚠', failed: '×' } as const;
const SUBSTITUTES: Record<string, string> = { '✔': '✓', '✘': '×', '✗': '×' };

/** Every text of the report with the marks a person may type (✔ ✘) as the font has them. */
function inFont(report: HandoverReport): HandoverReport {
  const json = JSON.stringify(report);
  const swapped = json.replace(/[✔✘✗]/g, (c) => SUBSTITUTES[c] ?? c);
  return swapped === json ? report : (JSON.parse(swapped) as HandoverReport);
}

interface Column {
  title: string;
  width: number;
}

/**
 * A table that continues on the next page, repeating its header row there (under `continued`,
 * when given: what the table belongs to, so a page that starts with it says so).
 */
function table(
  doc: Doc,
  columns: Column[],
  rows: { cells: string[]; color?: string }[],
  continued?: string,
): void {
  const pad = 3;
  // Between a cell's text and the next column: CJK text fills its line to the last point.
  const gap = 10;
  const textWidth = (i: number) => columns[i]!.width - pad - (i < columns.length - 1 ? gap : pad);
  const width = columns.reduce((n, c) => n + c.width, 0);
  const header = columns.some((c) => c.title !== '');
  const heightOf = (cells: string[]) =>
    Math.max(...cells.map((c, i) => doc.heightOfString(c, { width: textWidth(i) }))) + 2 * pad;
  const draw = (cells: string[], bold: boolean, color?: string) => {
    doc.font(bold ? 'Bold' : 'Regular');
    const y = doc.y;
    const h = heightOf(cells);
    let x = MARGIN;
    cells.forEach((c, i) => {
      const last = i === cells.length - 1;
      doc.fillColor(last && color ? color : 'black');
      doc.text(c, x + pad, y + pad, { width: textWidth(i) });
      x += columns[i]!.width;
    });
    doc.moveTo(MARGIN, y + h).lineTo(MARGIN + width, y + h);
    doc
      .lineWidth(bold ? 0.8 : 0.3)
      .strokeColor(bold ? 'black' : '#999999')
      .stroke();
    doc.x = MARGIN;
    doc.y = y + h;
  };
  const titles = columns.map((c) => c.title);
  doc.fontSize(9);
  if (header) draw(titles, true);
  for (const row of rows) {
    doc.font('Regular');
    if (doc.y + heightOf(row.cells) > doc.page.height - MARGIN - FOOTER) {
      doc.addPage();
      if (continued) {
        doc.font('Bold').fontSize(11).fillColor(GREY).text(continued, MARGIN);
        doc.fillColor('black').fontSize(9).moveDown(0.3);
      }
      if (header) draw(titles, true);
    }
    draw(row.cells, false, row.color);
  }
  doc.fillColor('black').moveDown(0.5);
}

function titlePage(
  doc: Doc,
  report: HandoverReport,
  digest: string,
  w: ReportWords,
  record: ReportRecord | null,
): void {
  const m = report.meta;
  doc.font('Bold').fontSize(22).text(w.reportTitle);
  doc.moveDown(0.3).font('Regular').fontSize(16).text(m.site);
  const v = verdict(report, w);
  doc.moveDown(0.5).font('Bold').fontSize(13);
  doc
    .fillColor(v.accepted ? COLOR.ok : COLOR.failed)
    .text(v.line)
    .fillColor('black');
  doc.moveDown(1.2);
  table(
    doc,
    [
      { title: '', width: 130 },
      { title: '', width: 365 },
    ],
    reportFacts(report, w).map((cells) => ({ cells })),
  );
  doc.moveDown(1);
  table(
    doc,
    [
      { title: w.columns.layer, width: 330 },
      { title: w.columns.result, width: 165 },
    ],
    report.layers.map((l) => {
      const shown = layerResultShown(l, w);
      return { cells: [w.layerTitle(l.id, l.title), shown.text], color: COLOR[shown.tone] };
    }),
  );
  doc
    .moveDown(1)
    .font('Regular')
    .fontSize(9)
    .fillColor(record && !record.recorded ? COLOR.failed : GREY);
  doc.text(w.digestRecord(digest, record));
  doc.fillColor('black');
}

function layerSection(doc: Doc, layer: HandoverReport['layers'][number], w: ReportWords): void {
  if (doc.y > doc.page.height - MARGIN - FOOTER - 90) doc.addPage();
  const shown = layerResultShown(layer, w);
  const heading = w.layerHeading(w.layerTitle(layer.id, layer.title), shown.text);
  doc.moveDown(0.8).font('Bold').fontSize(13);
  doc.fillColor(COLOR[shown.tone]);
  doc.text(heading, MARGIN);
  doc.fillColor('black').moveDown(0.3).font('Regular').fontSize(9);
  if (!layer.ran) doc.text(w.notRunNote);
  if (layer.evidence.length > 0) {
    table(
      doc,
      [
        { title: w.columns.check, width: 150 },
        { title: w.columns.evidence, width: 270 },
        { title: w.columns.result, width: 75 },
      ],
      layer.evidence.map((e) => {
        const mark = evidenceMark(e);
        return { cells: [e.label, e.value, `${MARK[mark]} ${w.mark[mark]}`], color: COLOR[mark] };
      }),
      w.continued(heading),
    );
  }
  doc.font('Regular').fontSize(9);
  if (layer.manual) {
    doc.text(
      w.confirmedByHand(layer.manual.who, w.when(layer.manual.at), layer.manual.note),
      MARGIN,
    );
  }
  if (layer.error) doc.fillColor(COLOR.failed).text(w.error(layer.error), MARGIN);
  doc.fillColor('black');
}

function signatures(doc: Doc, report: HandoverReport, w: ReportWords): void {
  if (doc.y > doc.page.height - MARGIN - FOOTER - 230) doc.addPage();
  const v = verdict(report, w);
  doc.moveDown(1.5).font('Bold').fontSize(13).text(w.signatures, MARGIN);
  doc
    .moveDown(0.3)
    .fontSize(11)
    .fillColor(v.accepted ? COLOR.ok : COLOR.failed);
  doc.text(v.line).fillColor('black');
  doc.moveDown(0.3).font('Regular').fontSize(9).text(v.intro);
  const top = doc.y + 14;
  const width = 235;
  w.signatureRoles.forEach((role, i) => {
    const x = MARGIN + i * (width + 25);
    doc.rect(x, top, width, 150).lineWidth(0.6).strokeColor('black').stroke();
    doc
      .font('Bold')
      .fontSize(11)
      .text(role, x + 10, top + 10, { width: width - 20 });
    w.signatureFields.forEach((field, j) => {
      const y = top + 45 + j * 34;
      doc
        .font('Regular')
        .fontSize(9)
        .text(field, x + 10, y, { width: 60 });
      doc
        .moveTo(x + 70, y + 11)
        .lineTo(x + width - 10, y + 11)
        .lineWidth(0.4)
        .stroke();
      if (i === 0 && j === 0)
        doc.text(report.meta.technician, x + 72, y - 1, { width: width - 90 });
    });
  });
  doc.x = MARGIN;
  doc.y = top + 160;
}

/** "page N of M" and the digest at the foot of every page, once the page count is known. */
function footers(doc: Doc, digest: string, w: ReportWords): void {
  const range = doc.bufferedPageRange();
  for (let i = range.start; i < range.start + range.count; i++) {
    doc.switchToPage(i);
    const bottom = doc.page.margins.bottom;
    doc.page.margins.bottom = 0; // writing in the margin must not start a new page
    const y = doc.page.height - MARGIN - 14;
    doc.font('Regular').fontSize(7).fillColor(GREY);
    doc.text(w.digestLine(digest), MARGIN, y, { width: 400, lineBreak: false });
    doc.text(w.pageOf(i + 1, range.count), MARGIN + 400, y, {
      width: doc.page.width - 2 * MARGIN - 400,
      align: 'right',
      lineBreak: false,
    });
    doc.page.margins.bottom = bottom;
  }
  doc.fillColor('black');
}

/** The report as a PDF to file and sign: title page, a table per layer, signatures. */
export function reportPdf(
  report: HandoverReport,
  digest: string,
  w: ReportWords = reportWords(),
  record: ReportRecord | null = null,
): Promise<Buffer> {
  report = inFont(printed(report, w));
  return new Promise((resolve, reject) => {
    const doc = new PDFDocument({
      size: 'A4',
      margin: MARGIN,
      bufferPages: true,
      // A fixed creation date: the same report makes the same file.
      info: {
        Title: `${w.reportTitle} ${report.meta.site}`,
        CreationDate: new Date(report.meta.createdAt),
      },
    });
    const chunks: Buffer[] = [];
    doc.on('data', (chunk: Buffer) => chunks.push(chunk));
    doc.on('end', () => resolve(Buffer.concat(chunks)));
    doc.on('error', reject);
    doc.registerFont('Regular', fontFile('Regular'));
    doc.registerFont('Bold', fontFile('Bold'));
    titlePage(doc, report, digest, w, record);
    doc.addPage();
    for (const layer of report.layers) layerSection(doc, layer, w);
    signatures(doc, report, w);
    footers(doc, digest, w);
    doc.end();
  });
}
