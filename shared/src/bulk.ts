import { z } from 'zod';

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
