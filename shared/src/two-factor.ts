import { z } from 'zod';
import { PASSWORD_MAX_LENGTH } from './constants.js';
import { ruleText } from './messages.js';

/** `GET /api/auth/2fa`: the signed-in administrator's second factor. */
export const twoFactorStatus = z.object({
  enabled: z.boolean(),
  /** An enrolment was started and waits for its first code. */
  pending: z.boolean(),
  recoveryCodesLeft: z.number().int().min(0),
  /** A superadmin requires two-factor sign-in of every administrator. */
  required: z.boolean(),
});
export type TwoFactorStatus = z.infer<typeof twoFactorStatus>;

/** `POST /api/auth/2fa/setup`: the current password again, as for a password change. */
export const twoFactorSetupRequest = z.object({
  password: z.string().min(1, 'Enter your current password').max(PASSWORD_MAX_LENGTH),
});
export const twoFactorSetup = z.object({
  /** Base32, for typing into an app by hand. */
  secret: z.string(),
  /** `otpauth://totp/…` */
  uri: z.string(),
  /** The URI as a QR code: an SVG data URL. */
  qrSvg: z.string(),
});
export type TwoFactorSetup = z.infer<typeof twoFactorSetup>;

/** `POST /api/auth/2fa/enable`: the first code from the app turns it on. */
export const twoFactorEnableRequest = z.object({
  code: z
    .string()
    .trim()
    .regex(/^\d{6}$/, ruleText('format_totp')),
});
/** Shown once: each code signs in once in place of the app's code. */
export const twoFactorEnabled = z.object({ recoveryCodes: z.array(z.string()).length(10) });
export type TwoFactorEnabled = z.infer<typeof twoFactorEnabled>;

/** `GET`/`PUT /api/settings/two-factor` (PUT: superadmin). */
export const twoFactorRequirement = z.object({ required: z.boolean() });
export type TwoFactorRequirement = z.infer<typeof twoFactorRequirement>;
