/**
 * CSV for spreadsheets. A cell that starts with = + - @ (or a tab or carriage return) would be
 * run as a formula by Excel or LibreOffice; it is prefixed with a quote so it stays text
 * (OWASP "CSV injection").
 */
export function neutralize(value: string): string {
  return /^[=+\-@\t\r]/.test(value) ? `'${value}` : value;
}

/**
 * `neutralize` undone, for a file the site exported coming back as an import: "'+86 138…" is
 * the phone number "+86 138…" again. Only a quote before what the export would have quoted.
 */
export function unneutralize(value: string): string {
  return /^'[=+\-@\t\r]/.test(value) ? value.slice(1) : value;
}

export function csvCell(value: string | number | boolean | null | undefined): string {
  if (value === null || value === undefined) return '';
  const text = neutralize(String(value));
  return /[",\r\n]/.test(text) ? `"${text.replace(/"/g, '""')}"` : text;
}

export function csvRow(values: (string | number | boolean | null | undefined)[]): string {
  return `${values.map(csvCell).join(',')}\r\n`;
}
