import { ErrorCode } from '@svc/shared';
import { ApiError } from './api';
import { currentLocale, t as translate } from './i18n';
import { translateError } from './i18n/errors';

/** "30 seconds", "1 minute", "3 minutes" — a wait a person can act on. */
export function formatWait(seconds: number): string {
  if (seconds < 60) return translate('time.seconds', { count: seconds });
  return translate('time.minutes', { count: Math.ceil(seconds / 60) });
}

/** "3 d 4 h", "2 h 5 min", "12 min 3 s", "45 s". */
export function formatUptime(totalSeconds: number): string {
  const s = Math.max(0, Math.floor(totalSeconds));
  const days = Math.floor(s / 86_400);
  const hours = Math.floor((s % 86_400) / 3_600);
  const minutes = Math.floor((s % 3_600) / 60);
  const seconds = s % 60;
  if (days > 0) return translate('time.uptimeDays', { days, hours });
  if (hours > 0) return translate('time.uptimeHours', { hours, minutes });
  if (minutes > 0) return translate('time.uptimeMinutes', { minutes, seconds });
  return translate('time.uptimeSeconds', { seconds });
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
  const t = (key: string, params?: Record<string, unknown>) =>
    translate(key, { ns: 'shared', ...params });
  if (!(error instanceof ApiError)) return t('errors.unknown');
  if (error.status === 429) {
    return error.retryAfterSeconds !== null && error.retryAfterSeconds > 0
      ? translate('errors.tooManyWait', { wait: formatWait(error.retryAfterSeconds) })
      : t('errors.rate_limited', { retryAfterS: 0 });
  }
  if (error.status === 401) {
    if (context === 'login') return t('errors.invalid_credentials');
    if (context === 'password' && !isSessionGone(error)) {
      return translate('errors.currentPasswordWrong');
    }
    return t('errors.session_expired');
  }
  if (error.status === 403 && error.code === ErrorCode.csrf) return t('errors.csrf');
  if (error.status === 503 && error.code !== ErrorCode.serviceBusy) {
    return t('errors.database_unavailable');
  }
  // Worded now, from the code, in the language the site shows now (issue 34).
  // An answer without a body of ours was worded by its status when it came.
  if (currentLocale() === 'en' || error.code.startsWith('http_')) return error.message;
  const text = translateError(error.code, error.params, error.message);
  // The server's English names a 500's request id; the operator finds the log line by it.
  const { requestId } = error.params;
  return error.code === ErrorCode.internal && typeof requestId === 'string'
    ? translate('errors.withRequestId', { message: text, requestId })
    : text;
}

/**
 * A refused submit for a form that shows `shownFields`: the server's field messages for those
 * fields (each beside its input), and the banner. A field message the form has no input for is
 * said in the banner itself, so "see the message beside each" never points at nothing.
 */
export function refusalOf(
  error: unknown,
  context: 'login' | 'password' | 'other',
  shownFields: readonly string[],
): { banner: string; fields: Record<string, string> } {
  const banner = describeError(error, context);
  if (!(error instanceof ApiError)) return { banner, fields: {} };
  const fields: Record<string, string> = {};
  const unshown: string[] = [];
  for (const [path, message] of Object.entries(error.fields)) {
    const field = path.split('.')[0] ?? path;
    if (shownFields.includes(field)) fields[field] = fields[field] ?? message;
    else if (!unshown.includes(message)) unshown.push(message);
  }
  if (unshown.length === 0) return { banner, fields };
  const shown = Object.keys(fields).length > 0;
  return { banner: shown ? [banner, ...unshown].join(' ') : unshown.join(' '), fields };
}
