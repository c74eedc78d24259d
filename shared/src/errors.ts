import { z } from 'zod';

/** Every HTTP error body (PROTOCOL §0). */
export const errorBody = z.object({
  error: z.object({
    code: z.string().regex(/^[a-z][a-z0-9_]*$/),
    message: z.string(),
    fields: z.record(z.string(), z.string()).optional(),
  }),
});
export type ErrorBody = z.infer<typeof errorBody>;

/** Codes the central service answers with; clients may switch on them. */
export const ErrorCode = {
  invalidInput: 'invalid_input',
  invalidJson: 'invalid_json',
  unauthorized: 'unauthorized',
  invalidCredentials: 'invalid_credentials',
  sessionExpired: 'session_expired',
  forbidden: 'forbidden',
  untrustedNetwork: 'untrusted_network',
  passwordChangeRequired: 'password_change_required',
  csrf: 'csrf',
  notFound: 'not_found',
  conflict: 'conflict',
  payloadTooLarge: 'payload_too_large',
  unsupportedMediaType: 'unsupported_media_type',
  invalidImage: 'invalid_image',
  /** A photo refused by the face check (no face, several, too small, blurred, turned away). */
  faceCheckFailed: 'face_check_failed',
  rateLimited: 'rate_limited',
  weakPassword: 'weak_password',
  databaseUnavailable: 'database_unavailable',
  internal: 'internal_error',
} as const;
export type ErrorCode = (typeof ErrorCode)[keyof typeof ErrorCode];

/** Turns zod issues into the `fields` map of the error body. */
export function issuesToFields(issues: readonly z.core.$ZodIssue[]): Record<string, string> {
  const fields: Record<string, string> = {};
  for (const issue of issues) {
    const path = issue.path.map(String).join('.') || '(body)';
    fields[path] ??= issue.message;
  }
  return fields;
}
