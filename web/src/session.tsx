import type { SessionUser } from '@svc/shared';
import { queryClient } from './query';
import {
  createContext,
  useCallback,
  useContext,
  useEffect,
  useMemo,
  useState,
  type ReactNode,
} from 'react';
import * as api from './api';
import { describeError } from './messages';

export type SessionState =
  | { status: 'loading' }
  /** `notice` is shown on the login page (why the person is there). */
  | { status: 'signedOut'; notice?: string }
  | { status: 'signedIn'; user: SessionUser }
  /** The service could not tell whether we are signed in. */
  | { status: 'unavailable'; message: string };

interface SessionContextValue {
  state: SessionState;
  /** Throws {@link api.ApiError}; the login page turns it into words. */
  signIn: (username: string, password: string) => Promise<void>;
  signOut: () => Promise<void>;
  /** Asks the server who we are (after a password change, or a 401/403 elsewhere). */
  refresh: (notice?: string) => Promise<void>;
}

const SessionContext = createContext<SessionContextValue | null>(null);

export function SessionProvider({ children }: { children: ReactNode }) {
  const [state, setState] = useState<SessionState>({ status: 'loading' });

  const refresh = useCallback(async (notice?: string) => {
    try {
      const user = await api.me();
      setState(user === null ? { status: 'signedOut', notice } : { status: 'signedIn', user });
    } catch (error) {
      setState({ status: 'unavailable', message: describeError(error, 'other') });
    }
  }, []);

  useEffect(() => {
    void refresh();
    return api.onSessionProblem((problem) => {
      void refresh(
        problem === 'unauthorized' ? 'Your session has ended. Sign in again.' : undefined,
      );
    });
  }, [refresh]);

  const signIn = useCallback(async (username: string, password: string) => {
    const user = await api.login(username, password);
    setState({ status: 'signedIn', user });
  }, []);

  const signOut = useCallback(async () => {
    try {
      await api.logout();
    } catch {
      // Signing out locally is what matters; the server session expires on its own.
    }
    // Nothing the previous account loaded stays in memory, and nothing in flight lands later.
    await queryClient.cancelQueries();
    queryClient.clear();
    setState({ status: 'signedOut', notice: 'You are signed out.' });
  }, []);

  const value = useMemo(
    () => ({ state, signIn, signOut, refresh }),
    [state, signIn, signOut, refresh],
  );
  return <SessionContext.Provider value={value}>{children}</SessionContext.Provider>;
}

export function useSession(): SessionContextValue {
  const value = useContext(SessionContext);
  if (value === null) throw new Error('useSession must be used inside <SessionProvider>');
  return value;
}
