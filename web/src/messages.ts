import { ErrorCode } from '@svc/shared';
import { ApiError } from './api';

/** "30 seconds", "1 minute", "3 minutes" — a wait a person can act on. */
export function formatWait(seconds: number): string {
  if (seconds < 60) return seconds === 1 ? '1 second' : `${seconds} seconds`;
  const minutes = Math.ceil(seconds / 60);
  return minutes === 1 ? '1 minute' : `${minutes} minutes`;
}

/** "3 d 4 h", "2 h 5 min", "12 min 3 s", "45 s". */
export function formatUptime(totalSeconds: number): string {
  const s = Math.max(0, Math.floor(totalSeconds));
  const days = Math.floor(s / 86_400);
  const hours = Math.floor((s % 86_400) / 3_600);
  const minutes = Math.floor((s % 3_600) / 60);
  const seconds = s % 60;
  if (days > 0) return `${days} d ${hours} h`;
  if (hours > 0) return `${hours} h ${minutes} min`;
  if (minutes > 0) return `${minutes} min ${seconds} s`;
  return `${seconds} s`;
}

/** A 401 that means "no session" rather than "wrong credential". */
export function isSessionGone(error: ApiError): boolean {
  return (
    error.status === 401 &&
    (error.code === ErrorCode.unauthorized || error.code === ErrorCode.sessionExpired)
  );
}

/** Plain-language text for a failed request; `context` picks the wording of a 401. */
export function describeError(error: unknown, context: 'login' | 'password' | 'other'): string {
  if (!(error instanceof ApiError)) {
    return 'Something went wrong. Try again, and reload the page if it keeps happening.';
  }
  if (error.status === 429) {
    return error.retryAfterSeconds !== null && error.retryAfterSeconds > 0
      ? `Too many attempts. Try again in ${formatWait(error.retryAfterSeconds)}.`
      : 'Too many attempts. Wait a moment and try again.';
  }
  if (error.status === 401) {
    if (context === 'login') return 'Wrong username or password.';
    if (context === 'password' && !isSessionGone(error)) return 'The current password is wrong.';
    return 'Your session has ended. Sign in again.';
  }
  if (error.status === 403 && error.code === ErrorCode.csrf) {
    return 'The page was open too long. Reload it and try again.';
  }
  if (error.status === 503) {
    return 'The service is temporarily unavailable (its database is not reachable). Try again shortly.';
  }
  return error.message;
}
