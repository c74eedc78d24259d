import type { FormErrors } from '@mantine/form';
import { useState, type FormEvent } from 'react';
import { isEditConflict, type ConflictReview } from './conflict';
import { t, useT } from './i18n';
import { isSessionGone, refusalOf } from './messages';
import { ApiError } from './api';
import { isSaid, said, saidRefusal, say, type Said } from './said';

/** The outcome as the form shows it, worded in the language shown now. */
export interface SubmitMessage {
  ok: boolean;
  text: string;
}

/** An outcome as it is kept: its text worded each time it is shown (said.ts). */
export interface SaidMessage {
  ok: boolean;
  text: Said | string;
}

/** What a submit's work answers: the success text, a refusal of its own, or null for none. */
export type SubmitOutcome = Said | string | SaidMessage | null;

/** The parts of a `@mantine/form` form a submit needs. */
export interface SubmittedForm<Values> {
  setErrors: (errors: FormErrors) => void;
  getValues: () => Values;
  onSubmit: (
    handle: (values: Values) => Promise<void>,
    refused?: () => void,
  ) => (event?: FormEvent<HTMLFormElement>) => void;
}

export interface FormSubmit<Values> {
  busy: boolean;
  message: SubmitMessage | null;
  /** Runs `what`, then `after` either way; a refusal goes through the one error map. */
  run: (what: () => Promise<SubmitOutcome>, after?: () => Promise<unknown>) => Promise<void>;
  /**
   * The form's `onSubmit`: the values, once they pass the form's own check, go to `save`; a
   * submit the form's own check refused clears the last outcome (it no longer stands).
   */
  handler: (
    save: (values: Values) => Promise<SubmitOutcome>,
    after?: () => Promise<unknown>,
  ) => (event?: FormEvent<HTMLFormElement>) => void;
  /** For a submit the form's own check refused: the last outcome no longer stands. */
  clear: () => void;
  /** An outcome of something else the form does (a connection test, say). */
  show: (message: SaidMessage) => void;
}

/**
 * Every form's submit to the server: busy while it runs, the server's field messages on the
 * form's fields (any for a field the form has no input for said in the banner), the outcome in
 * plain words for the form's alert (kept as what it says, worded in the language shown now). With
 * `conflict`, a save refused because someone else saved first takes their changes into the
 * form instead (conflict.tsx).
 */
export function useFormSubmit<Values>(
  form: SubmittedForm<Values>,
  options: {
    /** The wording of a 401: a password form's is "the current password is wrong". */
    context?: 'password' | 'other';
    conflict?: ConflictReview<Values>;
    /** The outcome shown when the form opens (a save the page before it made). */
    initial?: SaidMessage | null;
  } = {},
): FormSubmit<Values> {
  const { context = 'other', conflict } = options;
  // The form renders again when the language changes, and its outcome is worded again.
  useT();
  const [busy, setBusy] = useState(false);
  const [message, setMessage] = useState<SaidMessage | null>(options.initial ?? null);
  const refuse = (error: unknown) => {
    // No session: the site asks to sign in again over the page, which keeps the form as it is
    // (SignInAgain); a banner under it would still say "not saved" after signing in.
    if (context !== 'password' && error instanceof ApiError && isSessionGone(error)) return;
    const shown = Object.keys(form.getValues() as object);
    form.setErrors(refusalOf(error, context, shown).fields);
    setMessage({ ok: false, text: saidRefusal(error, context, shown) });
  };
  /** Someone else saved first: their changes taken into the form (true), or not to be had. */
  const tookTheirChanges = async (error: unknown, values: Values | undefined) => {
    if (conflict === undefined || values === undefined || !isEditConflict(error)) return false;
    try {
      return await conflict.review(values);
    } catch (again) {
      // Reading the record again failed too: that failure is the one said.
      refuse(again);
      return true;
    }
  };
  const run = async (
    what: () => Promise<SubmitOutcome>,
    after?: () => Promise<unknown>,
    values?: Values,
  ) => {
    setBusy(true);
    setMessage(null);
    conflict?.clear();
    try {
      const outcome = await what();
      if (typeof outcome === 'string' || isSaid(outcome)) setMessage({ ok: true, text: outcome });
      else if (outcome !== null) setMessage(outcome);
    } catch (error) {
      if (!(await tookTheirChanges(error, values))) refuse(error);
    } finally {
      setBusy(false);
      await after?.();
    }
  };
  const clear = () => setMessage(null);
  /**
   * A date-and-time box typed in part holds the value "" (empty, as if cleared) while the
   * browser knows its input is bad: saving it would drop the time unsaid (a Valid until gone,
   * access for ever). Such a box, found by its `name`, is refused beside it, nothing sent.
   */
  const refusedIncomplete = (element: HTMLFormElement): boolean => {
    const bad = [...element.querySelectorAll('input')].filter((i) => i.validity.badInput);
    if (bad.length === 0) return false;
    const text = t('common.incompleteInput');
    form.setErrors(Object.fromEntries(bad.map((i) => [i.name, text])));
    setMessage({ ok: false, text: said('errors.invalid_input', { ns: 'shared' }) });
    bad[0]!.focus();
    return true;
  };
  return {
    busy,
    message: message === null ? null : { ok: message.ok, text: say(message.text) },
    run: (what, after) => run(what, after),
    handler: (save, after) => {
      const submit = form.onSubmit((values) => run(() => save(values), after, values), clear);
      return (event) => {
        if (event !== undefined && refusedIncomplete(event.currentTarget)) {
          event.preventDefault();
          return;
        }
        submit(event);
      };
    },
    clear,
    show: setMessage,
  };
}
