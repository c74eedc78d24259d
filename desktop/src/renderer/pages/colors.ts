/** Status colours dark enough for white text on small badges (WCAG AA, 4.5:1). */
export const STATUS_COLOR = {
  ok: '#1b5e20',
  bad: '#b71c1c',
  neutral: '#495057',
} as const;
export const LAYER_COLOR = {
  passed: STATUS_COLOR.ok,
  failed: STATUS_COLOR.bad,
  pending: STATUS_COLOR.neutral,
} as const;
