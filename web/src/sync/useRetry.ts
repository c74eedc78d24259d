import type { QueryKey } from '@tanstack/react-query';
import { useState } from 'react';
import { useAction } from '../useAction';

/**
 * A page's retry buttons: which one is busy (by the id it acts on), the failure in plain words,
 * and the list refreshed afterwards. `run` answers what the action reported, or null.
 */
export function useRetry(refresh: QueryKey) {
  const { problem, act } = useAction(refresh);
  const [busy, setBusy] = useState<string | null>(null);
  const [notice, setNotice] = useState<string | null>(null);
  const run = async (id: string, what: () => Promise<string>) => {
    setBusy(id);
    setNotice(null);
    await act(async () => setNotice(await what()));
    setBusy(null);
  };
  return { busy, problem, notice, run };
}
