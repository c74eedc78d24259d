import type { QueryKey } from '@tanstack/react-query';
import { useState } from 'react';
import { say, type Said } from '../said';
import { useAction } from '../useAction';

/**
 * A page's retry buttons: which one is busy (by the id it acts on), the failure in plain words,
 * and the list refreshed afterwards. `run` answers what the action reported ('' for nothing),
 * shown in the language shown now.
 */
export function useRetry(refresh: QueryKey) {
  const { problem, act } = useAction(refresh);
  const [busy, setBusy] = useState<string | null>(null);
  const [notice, setNotice] = useState<Said | string | null>(null);
  const run = async (id: string, what: () => Promise<Said | string>) => {
    setBusy(id);
    setNotice(null);
    await act(async () => setNotice(await what()));
    setBusy(null);
  };
  return { busy, problem, notice: notice === null ? null : say(notice), run };
}
