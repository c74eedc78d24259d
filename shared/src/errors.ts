import { z } from 'zod';

/** Every HTTP error body (PROTOCOL §0). */
export const errorBody = z.object({
  error: z.object({
    code: z.string().regex(/^[a-z][a-z0-9_]*$/),
    message: z.string(),
    fields: z.record(z.string(), z.string()).optional(),
    /** The values the message names (a limit, a file name), for a translation to fill in. */
    params: z.record(z.string(), z.union([z.string(), z.number()])).optional(),
    /** Each field's message as its stable code and values (`fields` holds the sentences). */
    fieldCodes: z
      .record(
        z.string(),
        z.object({
          code: z.string(),
          params: z.record(z.string(), z.union([z.string(), z.number()])).optional(),
        }),
      )
      .optional(),
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
  /** `If-Match` names a state the record has left: someone else changed it (412). */
  editConflict: 'edit_conflict',
  /** A sibling space already has this name (409; params: name). */
  duplicateSpaceName: 'duplicate_space_name',
  payloadTooLarge: 'payload_too_large',
  unsupportedMediaType: 'unsupported_media_type',
  invalidImage: 'invalid_image',
  /** A photo refused by the face check (no face, several, too small, blurred, turned away). */
  faceCheckFailed: 'face_check_failed',
  rateLimited: 'rate_limited',
  /** Too much of one kind of work at once (photos being checked): retry after `Retry-After`. */
  serviceBusy: 'service_busy',
  /** A terminal tied to another organization: only it or a superadmin may configure it. */
  terminalOtherOrganization: 'terminal_other_organization',
  /** The password was right; the account's two-factor code is needed too (or was wrong). */
  twoFactorRequired: 'two_factor_required',
  twoFactorInvalid: 'two_factor_invalid',
  /** Two-factor sign-in is required for every administrator and this one has not enrolled. */
  twoFactorEnrolmentRequired: 'two_factor_enrolment_required',
  weakPassword: 'weak_password',
  databaseUnavailable: 'database_unavailable',
  internal: 'internal_error',
} as const;
export type ErrorCode = (typeof ErrorCode)[keyof typeof ErrorCode];
