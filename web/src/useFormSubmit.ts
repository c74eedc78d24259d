import { useState } from 'react';
import { ApiError } from './api';
import { describeError } from './messages';

export interface SubmitMessage {
  ok: boolean;
  text: string;
}

/**
 * A form's submit to the server: busy while it runs, the server's field errors put on the
 * form's fields, the outcome in plain words for the form's alert.
 */
export function useFormSubmit(form: { setErrors: (errors: Record<string, string>) => void }): {
  busy: boolean;
  message: SubmitMessage | null;
  /** Runs `what` (its answer: the success text, or null for none), then `after` either way. */
  run: (what: () => Promise<string | null>, after?: () => Promise<unknown>) => Promise<void>;
  /** For a submit the form's own check refused: the last outcome no longer stands. */
  clear: () => void;
} {
  const [busy, setBusy] = useState(false);
  const [message, setMessage] = useState<SubmitMessage | null>(null);
  const run = async (what: () => Promise<string | null>, after?: () => Promise<unknown>) => {
    setBusy(true);
    setMessage(null);
    try {
      const text = await what();
      if (text !== null) setMessage({ ok: true, text });
    } catch (error) {
      if (error instanceof ApiError) form.setErrors(error.fields);
      setMessage({ ok: false, text: describeError(error, 'other') });
    } finally {
      setBusy(false);
      await after?.();
    }
  };
  return { busy, message, run, clear: () => setMessage(null) };
}
