import { z } from 'zod';

const units: Record<string, number> = { ms: 1, s: 1_000, m: 60_000, h: 3_600_000 };

/** `500ms`, `10s`, `1.5m`, `1h`, or `0`; a unit is required so `10` is never ambiguous. */
export const duration = z.string().transform((text, context) => {
  const trimmed = text.trim();
  if (trimmed === '0') return 0;
  const match = /^(\d+(?:\.\d+)?)(ms|s|m|h)$/.exec(trimmed);
  const value = match?.[1];
  const unit = match?.[2];
  if (value === undefined || unit === undefined) {
    context.addIssue({
      code: 'custom',
      message: `"${text}" is not a duration (use 500ms, 10s, 2m or 0)`,
    });
    return z.NEVER;
  }
  return Math.round(Number(value) * (units[unit] ?? 1));
});
