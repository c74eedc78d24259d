import { t } from './i18n';
import { describeError, refusalOf } from './messages';

const WORD = Symbol('said');

/**
 * A text a page keeps to show after an action (a banner, a notice), kept as what it says rather
 * than in words: a catalog key and its values, or the failure itself. `say` words it each time
 * it is shown, in the language shown then: after a switch of language the banner reads in the
 * new one, never the old (outside eyes: an English notice left on a page turned Chinese).
 */
export interface Said {
  readonly [WORD]: () => string;
}

type ErrorContext = 'login' | 'password' | 'other';

/** Words made from the values kept, each time they are shown (a time in the reader's format). */
export function saidWith(word: () => string): Said {
  return { [WORD]: word };
}

export function isSaid(value: unknown): value is Said {
  return typeof value === 'object' && value !== null && WORD in value;
}

/** A string is a text that reads the same in every language (a name), or one worded already. */
export function say(text: Said | string): string {
  return typeof text === 'string' ? text : text[WORD]();
}

/** A catalog text; a value that is itself a Said is worded with it. */
export function said(key: string, params: Readonly<Record<string, unknown>> = {}): Said {
  return saidWith(() =>
    t(
      key,
      Object.fromEntries(
        Object.entries(params).map(([name, value]) => [name, isSaid(value) ? say(value) : value]),
      ),
    ),
  );
}

/** A failed request in plain words (describeError). */
export function saidFailure(error: unknown, context: ErrorContext = 'other'): Said {
  return saidWith(() => describeError(error, context));
}

/** A refused submit's banner for a form that shows `shownFields` (refusalOf). */
export function saidRefusal(
  error: unknown,
  context: ErrorContext,
  shownFields: readonly string[],
): Said {
  return saidWith(() => refusalOf(error, context, shownFields).banner);
}
