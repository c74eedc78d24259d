/** Status colours dark enough for white text on small badges (WCAG AA, 4.5:1). */
export const STATUS_COLOR = {
  ok: '#1b5e20',
  bad: '#b71c1c',
  neutral: '#495057',
  /** Warnings and layers not run, as text on white: Mantine's yellow.9 is below 3:1. */
  warn: '#7a4700',
} as const;
