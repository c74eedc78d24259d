import type { ServiceWarning } from '@svc/shared';
import { exists, t } from './index';

/**
 * The heartbeat's warnings in the site's language: each by its code and values from the
 * catalog (issue #34), the service's English only for a code this site does not know yet, or
 * from an older service that sends the strings alone.
 */
export function warningTexts(beat: {
  warnings: readonly string[];
  warningDetails?: readonly ServiceWarning[] | undefined;
}): string[] {
  if (beat.warningDetails === undefined) return [...beat.warnings];
  return beat.warningDetails.map(warningText);
}

/** One warning (or problem) by its code and values; its English for a code not known here. */
export function warningText(w: ServiceWarning): string {
  return exists(`status.warning.${w.code}`) ? t(`status.warning.${w.code}`, w.params) : w.message;
}
