import { pino, type Logger } from 'pino';

export type { Logger };

/**
 * Paths that may carry secrets or personal data. Pino replaces them before a line is written,
 * so no code path can leak them by logging a whole request or body.
 */
export const REDACT_PATHS = [
  'req.headers.cookie',
  'req.headers.authorization',
  'req.headers["x-csrf-token"]',
  'res.headers["set-cookie"]',
  'password',
  'newPassword',
  'currentPassword',
  'token',
  'key',
  'photo',
  'snapshot',
  '*.password',
  '*.newPassword',
  '*.currentPassword',
  '*.token',
  '*.key',
  '*.photo',
  '*.snapshot',
];

export function createLogger(level: string, destination?: NodeJS.WritableStream): Logger {
  return pino(
    {
      level,
      base: { service: 'svc' },
      redact: { paths: REDACT_PATHS, censor: '[redacted]' },
      timestamp: pino.stdTimeFunctions.isoTime,
    },
    destination ?? process.stdout,
  );
}
