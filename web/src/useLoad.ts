import { useCallback, useEffect, useRef, useState } from 'react';
import { describeError } from './messages';

export interface Loaded<T> {
  data: T | null;
  /** Plain-language error of the last attempt, or null. */
  error: string | null;
  loading: boolean;
  /** Loads again (keeps the data shown until the answer arrives). */
  reload: () => void;
}

/**
 * Runs `load` when `key` changes; an answer to a superseded request is dropped (aborted), so
 * typing in a search box never shows an older result over a newer one.
 */
export function useLoad<T>(key: string, load: (signal: AbortSignal) => Promise<T>): Loaded<T> {
  const [data, setData] = useState<T | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [loading, setLoading] = useState(true);
  const [generation, setGeneration] = useState(0);
  const latest = useRef(load);
  latest.current = load;

  useEffect(() => {
    const controller = new AbortController();
    setLoading(true);
    latest.current(controller.signal).then(
      (value) => {
        if (controller.signal.aborted) return;
        setData(value);
        setError(null);
        setLoading(false);
      },
      (failure: unknown) => {
        if (controller.signal.aborted) return;
        setError(describeError(failure, 'other'));
        setLoading(false);
      },
    );
    return () => controller.abort();
  }, [key, generation]);

  const reload = useCallback(() => setGeneration((g) => g + 1), []);
  return { data, error, loading, reload };
}
