import { z } from 'zod';
import type { Faults } from '../http/faults.js';
import { duration } from './durations.js';

/** One `--fault` value: `[NODE:]refuse|status500|delay=DURATION|drop=RATE|save-different|mute`. */
export interface FaultFlag {
  node: string | undefined;
  faults: Faults;
}

const rate = z.coerce.number().min(0).max(1);

function parseSpec(spec: string): Faults | undefined {
  const [name, value] = spec.split('=', 2) as [string, string | undefined];
  if (value === undefined) {
    if (name === 'refuse') return { refuse: true };
    if (name === 'status500' || name === '500') return { status500: true };
    if (name === 'save-different') return { saveDifferent: true };
    if (name === 'mute') return { mute: true };
    if (name === 'drop') return { dropRate: 1 };
    return undefined;
  }
  if (name === 'delay') {
    const parsed = duration.safeParse(value);
    return parsed.success ? { delayMs: parsed.data } : undefined;
  }
  if (name === 'drop') {
    const parsed = rate.safeParse(value);
    return parsed.success ? { dropRate: parsed.data } : undefined;
  }
  return undefined;
}

export const faultFlag = z.string().transform((text, context): FaultFlag => {
  // Node ids may contain ':', fault specs never do: the node is everything before the last one.
  const colon = text.lastIndexOf(':');
  const node = colon > 0 ? text.slice(0, colon) : undefined;
  const faults = parseSpec(colon > 0 ? text.slice(colon + 1) : text);
  if (!faults) {
    context.addIssue({
      code: 'custom',
      message: `"${text}" is not a fault (refuse, status500, delay=2s, drop=0.5, save-different, mute; optionally NODE:fault)`,
    });
    return z.NEVER;
  }
  return { node, faults };
});

/** Merges every `--fault` that applies to `node` (those without a node apply to all). */
export function faultsFor(node: string, flags: FaultFlag[]): Faults {
  return flags
    .filter((flag) => flag.node === undefined || flag.node === node)
    .reduce<Faults>((merged, flag) => ({ ...merged, ...flag.faults }), {});
}
