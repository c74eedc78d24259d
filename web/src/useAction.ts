import type { QueryKey } from '@tanstack/react-query';
import { useState } from 'react';
import { describeError } from './messages';
import { queryClient } from './query';

/**
 * A page's write action: runs it, keeps its failure in plain words for the page's alert, and
 * refreshes the list it changed whether it succeeded or not.
 */
export function useAction(refresh: QueryKey): {
  problem: string | null;
  act: (what: () => Promise<unknown>) => Promise<void>;
} {
  const [problem, setProblem] = useState<string | null>(null);
  const act = async (what: () => Promise<unknown>) => {
    setProblem(null);
    try {
      await what();
    } catch (error) {
      setProblem(describeError(error, 'other'));
    }
    await queryClient.invalidateQueries({ queryKey: refresh });
  };
  return { problem, act };
}
