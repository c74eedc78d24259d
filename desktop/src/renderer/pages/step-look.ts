import type { AcceptanceState } from '../../core/api.js';

type Layer = AcceptanceState['layers'][number];

/** Where a layer stands, as the stepper shows it. */
export type StepTone = 'passed' | 'warning' | 'failed' | 'waiting' | 'notRun';

/**
 * Each tone's fill, glyph colour and mark: green ✔, yellow ⚠, red ✘, blue … (waiting for a
 * hand confirmation), grey with the step's number (not run). The mark says it without colour;
 * every glyph has at least 4.5:1 contrast on its fill.
 */
export const STEP_LOOK: Record<StepTone, { fill: string; ink: string; mark: string | null }> = {
  passed: { fill: '#2b7a36', ink: '#ffffff', mark: '✔' },
  warning: { fill: '#f2c200', ink: '#1a1a1a', mark: '⚠' },
  failed: { fill: '#c62828', ink: '#ffffff', mark: '✘' },
  waiting: { fill: '#1c5592', ink: '#ffffff', mark: '…' },
  notRun: { fill: '#5f666d', ink: '#ffffff', mark: null },
};

/** A layer's tone: a layer that passed with a warning is a warning, never a plain tick. */
export function stepTone(layer: Layer): StepTone {
  if (layer.ranAt === null) return 'notRun';
  if (layer.status === 'failed') return 'failed';
  if (layer.status === 'pending') return 'waiting';
  return layer.evidence.some((e) => e.warning === true) ? 'warning' : 'passed';
}

/** The catalog key of a tone's words. */
export const toneKey = (tone: StepTone) => `acceptance.status.${tone}`;
