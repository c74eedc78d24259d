import { z } from 'zod';

const MB = 1024 * 1024;

/** `POST /api/imports/people` file limits: the server refuses more, the site says so first. */
export const IMPORT_LIMITS = { csvBytes: 20 * MB, photosBytes: 1024 * MB } as const;

/** One refused row of an import: its line in the file (1 = header), its ID number, why. */
export const importRowError = z.object({
  row: z.number().int(),
  idNumber: z.string().nullable(),
  error: z.string(),
});
export type ImportRowError = z.infer<typeof importRowError>;

/**
 * A people import (`POST /api/imports/people`, `GET /api/imports/:id`): `processed` of `total`
 * rows so far; `errors` holds the first 1,000 refused rows (`failed` counts them all).
 */
export const importJobOut = z.object({
  id: z.string(),
  state: z.enum(['running', 'succeeded', 'failed']),
  total: z.number().int(),
  processed: z.number().int(),
  succeeded: z.number().int(),
  failed: z.number().int(),
  errors: z.array(importRowError),
  createdAt: z.string(),
  finishedAt: z.string().nullable(),
});
export type ImportJobOut = z.infer<typeof importJobOut>;

/** A file as the import form holds it: anything with a size (a browser `File`). */
const upload = (what: string, max: number) =>
  z
    .custom<Blob>((v) => typeof Blob !== 'undefined' && v instanceof Blob, `Choose ${what}`)
    .refine((file) => file.size <= max, `${what} is larger than ${max / MB} MB`);

/** The import form: a CSV, and optionally a ZIP of photos named by ID number. */
export const importFiles = z.object({
  csv: upload('the CSV file', IMPORT_LIMITS.csvBytes),
  photos: upload('the ZIP of photos', IMPORT_LIMITS.photosBytes).nullable(),
});
