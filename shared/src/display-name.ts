import { z } from 'zod';
import { ruleText, type MessageCode } from './messages.js';

/**
 * The one rule for a name people read in lists and pickers (a person, an organization, a space,
 * a device, an administrator's display name). Names travel to devices, CSV exports and logs:
 * no control characters (C0, DEL, C1: NUL, tabs, line breaks, escapes); no bidi embedding,
 * override or isolate characters ("\u202Eevil" displays as "live", a spoofing risk); and
 * something visible once whitespace and zero-width characters are set aside.
 */
const CONTROL = /\p{Cc}/u;
const BIDI = /[\u202A-\u202E\u2066-\u2069]/u;
// Zero-width and other invisible characters (also the soft hyphen, the Hangul fillers); the
// combining ones stand alone, outside the class, so none can join a neighbour in it.
const BLANK =
  /^(?:[\s\u00AD\u180E\u200B-\u200F\u2060-\u2064\u3164\uFEFF\uFFA0]|\u034F|\u115F|\u1160)*$/u;

/** Why a name is refused, by message code; undefined when it is fine (or simply empty). */
export function displayNameProblem(
  name: string,
): 'control_characters' | 'bidi_characters' | 'invisible_name' | undefined {
  if (CONTROL.test(name)) return 'control_characters';
  if (BIDI.test(name)) return 'bidi_characters';
  // An empty name is "required" (the length rule's); one of only invisible characters is this.
  if (name !== '' && BLANK.test(name)) return 'invisible_name';
  return undefined;
}

const refusedFor = (code: MessageCode) => (name: string) => displayNameProblem(name) !== code;

/** A display name: trimmed, 1–128 characters, by {@link displayNameProblem}. */
export const displayName = z
  .string()
  .trim()
  .min(1)
  .max(128)
  .refine(refusedFor('control_characters'), ruleText('control_characters'))
  .refine(refusedFor('bidi_characters'), ruleText('bidi_characters'))
  .refine(refusedFor('invisible_name'), ruleText('invisible_name'));
