import PDFDocument from 'pdfkit';
import type { HandoverReport } from './report.js';

/** The report as a PDF (pdfkit's built-in Helvetica: no font file to ship). */
export function reportPdf(report: HandoverReport, digest: string): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    // A fixed creation date: the same report makes the same file.
    const doc = new PDFDocument({
      size: 'A4',
      margin: 50,
      info: {
        Title: `svc handover report ${report.meta.site}`,
        CreationDate: new Date(report.meta.createdAt),
      },
    });
    const chunks: Buffer[] = [];
    doc.on('data', (chunk: Buffer) => chunks.push(chunk));
    doc.on('end', () => resolve(Buffer.concat(chunks)));
    doc.on('error', reject);
    const m = report.meta;
    // Helvetica (WinAnsi) lacks the check marks: plain words instead.
    const text = (s: string) => s.replace(/[^\x20-\x7e\u00a0-\u00ff]/g, '*');
    doc.fontSize(18).text('svc handover report');
    doc.moveDown(0.5).fontSize(10);
    for (const [k, v] of [
      ['Site', m.site],
      ['Release', m.release],
      ['Host', m.host],
      ['Central address', m.centralUrl],
      ['Date', m.createdAt],
      ['Technician', m.technician],
      ['Result', `${report.summary.passed}/${report.summary.layers} layers passed`],
    ] as const) {
      doc.text(text(`${k}: ${v}`));
    }
    for (const layer of report.layers) {
      doc
        .moveDown(0.8)
        .fontSize(13)
        .text(text(`${layer.title}: ${layer.status}`));
      doc.fontSize(9);
      for (const e of layer.evidence)
        doc.text(text(`[${e.ok ? 'ok' : 'FAIL'}] ${e.label}: ${e.value}`));
      if (layer.manual) {
        doc.text(
          text(
            `Confirmed by hand by ${layer.manual.who} at ${layer.manual.at}${layer.manual.note ? `: ${layer.manual.note}` : ''}`,
          ),
        );
      }
      if (layer.error) doc.text(text(`Error: ${layer.error}`));
    }
    doc.moveDown(1).fontSize(8).text(`SHA-256 of report.json: ${digest}`);
    doc.end();
  });
}
