import {
  importCheckOut,
  importJobOut,
  listOf,
  type ImportCheckOut,
  type ImportJobOut,
} from '@svc/shared';
import { request } from '../api';
import { currentLocale } from '../i18n';

const importList = listOf(importJobOut);

/** Sends the files; the server answers at once with the job, the rows run in the background. */
export function startImport(files: { csv: Blob; photos: Blob | null }): Promise<ImportJobOut> {
  const form = new FormData();
  form.append('csv', files.csv);
  if (files.photos !== null) form.append('photos', files.photos);
  return request('POST', '/api/imports/people', { body: form, schema: importJobOut });
}

/** The organization's latest imports, newest first (the first is the one the page follows). */
export async function recentImports(signal?: AbortSignal): Promise<ImportJobOut[]> {
  return (await request('GET', '/api/imports', { schema: importList, signal })).items;
}

/** The refused rows of an import as CSV in the site's language (a plain link: downloaded). */
export function errorsUrl(id: string): string {
  return `/api/imports/${encodeURIComponent(id)}/errors.csv?lang=${currentLocale()}`;
}

/** Rows done, 0–100, whole numbers; 100 only once every row is done. */
export function percentDone(job: ImportJobOut): number {
  if (job.state === 'succeeded') return 100;
  if (job.total === 0) return 0;
  const percent = Math.floor((job.processed / job.total) * 100);
  return job.state === 'running' ? Math.min(99, percent) : percent;
}

/** Every row of the CSV judged as the import would, and the ZIP's entries; nothing written. */
export function checkImport(csv: Blob, photos: Blob | null): Promise<ImportCheckOut> {
  const form = new FormData();
  form.append('csv', csv);
  if (photos !== null) form.append('photos', photos);
  return request('POST', '/api/imports/people/check', { body: form, schema: importCheckOut });
}
