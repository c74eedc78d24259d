import { z } from 'zod';
import { PASSWORD_MAX_LENGTH } from './constants.js';
import { locale } from './locale.js';

export const adminRole = z.enum(['superadmin', 'admin', 'operator']);
export type AdminRole = z.infer<typeof adminRole>;

/** `POST /api/auth/login` (PROTOCOL §6). */
export const loginRequest = z.object({
  username: z.string().min(1).max(64),
  password: z.string().min(1).max(PASSWORD_MAX_LENGTH),
  /**
   * The account's second factor, when it has one: the authenticator's 6 digits or a recovery
   * code. Without it such an account answers 401 `two_factor_required`.
   */
  code: z
    .string()
    .trim()
    .min(1, 'Enter the code from your authenticator app, or a recovery code')
    .max(32, 'A code is at most 32 characters')
    .optional(),
});
export type LoginRequest = z.infer<typeof loginRequest>;

export const sessionUser = z.object({
  id: z.string(),
  username: z.string(),
  displayName: z.string(),
  role: adminRole,
  organizationId: z.string(),
  mustChangePassword: z.boolean(),
  /** The account signs in with a second factor (TOTP). */
  twoFactorEnabled: z.boolean().optional(),
  /**
   * Two-factor sign-in is required for every administrator and this one has not enrolled:
   * until they do, only enrolment, sign-out and the password change answer.
   */
  twoFactorEnrolmentRequired: z.boolean().optional(),
  /**
   * A superadmin's working organization: every page shows it and new records go there; null
   * while working in all organizations (new records then go to `organizationId`).
   */
  workingOrganizationId: z.string().nullable().optional(),
  /** The site's language the administrator chose; null until they choose (the browser's). */
  language: locale.nullable().optional(),
  /** The site's time zone (a setting, else the server's): every time shown is in it. */
  timeZone: z.string().optional(),
});
export type SessionUser = z.infer<typeof sessionUser>;

/** `POST /api/auth/login` and `GET /api/auth/me` answer with this (PROTOCOL §6). */
export const userResponse = z.object({ user: sessionUser });
export type UserResponse = z.infer<typeof userResponse>;

/** `PUT /api/auth/organization`: a superadmin chooses the organization to work in (null: all). */
export const workingOrganizationRequest = z.object({
  organizationId: z.uuid().nullable(),
});
export type WorkingOrganizationRequest = z.infer<typeof workingOrganizationRequest>;

/** `POST /api/auth/password` (PROTOCOL §6). Strength is judged by the server. */
export const passwordChangeRequest = z.object({
  currentPassword: z.string().min(1).max(PASSWORD_MAX_LENGTH),
  newPassword: z.string().min(1).max(PASSWORD_MAX_LENGTH),
});
export type PasswordChangeRequest = z.infer<typeof passwordChangeRequest>;

/** `GET /api/auth/csrf` (PROTOCOL §6). */
export const csrfResponse = z.object({ token: z.string().min(1) });
