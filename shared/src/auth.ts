import { z } from 'zod';
import { PASSWORD_MAX_LENGTH } from './constants.js';

export const adminRole = z.enum(['superadmin', 'admin', 'operator']);
export type AdminRole = z.infer<typeof adminRole>;

/** `POST /api/auth/login` (PROTOCOL §6). */
export const loginRequest = z.object({
  username: z.string().min(1).max(64),
  password: z.string().min(1).max(PASSWORD_MAX_LENGTH),
});
export type LoginRequest = z.infer<typeof loginRequest>;

export const sessionUser = z.object({
  id: z.string(),
  username: z.string(),
  displayName: z.string(),
  role: adminRole,
  organizationId: z.string(),
  mustChangePassword: z.boolean(),
});
export type SessionUser = z.infer<typeof sessionUser>;

/** `POST /api/auth/login` and `GET /api/auth/me` answer with this (PROTOCOL §6). */
export const userResponse = z.object({ user: sessionUser });
export type UserResponse = z.infer<typeof userResponse>;

/** `POST /api/auth/password` (PROTOCOL §6). Strength is judged by the server. */
export const passwordChangeRequest = z.object({
  currentPassword: z.string().min(1).max(PASSWORD_MAX_LENGTH),
  newPassword: z.string().min(1).max(PASSWORD_MAX_LENGTH),
});
export type PasswordChangeRequest = z.infer<typeof passwordChangeRequest>;

/** `GET /api/auth/csrf` (PROTOCOL §6). */
export const csrfResponse = z.object({ token: z.string().min(1) });
