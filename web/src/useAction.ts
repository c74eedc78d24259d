import type { QueryKey } from '@tanstack/react-query';
import { useState } from 'react';
import { useT } from './i18n';
import { queryClient } from './query';
import { saidFailure, say, type Said } from './said';

/**
 * A page's write action: runs it, keeps its failure for the page's alert (in plain words, in the
 * language shown now), and refreshes the list it changed whether it succeeded or not.
 */
export function useAction(refresh: QueryKey): {
  problem: string | null;
  act: (what: () => Promise<unknown>) => Promise<void>;
} {
  // The page renders again when the language changes, and the failure is worded again.
  useT();
  const [problem, setProblem] = useState<Said | null>(null);
  const act = async (what: () => Promise<unknown>) => {
    setProblem(null);
    try {
      await what();
    } catch (error) {
      setProblem(saidFailure(error));
    }
    await queryClient.invalidateQueries({ queryKey: refresh });
  };
  return { problem: problem === null ? null : say(problem), act };
}
