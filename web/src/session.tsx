import type { Locale, SessionUser } from '@svc/shared';
import { queryClient } from './query';
import {
  createContext,
  useCallback,
  useContext,
  useEffect,
  useMemo,
  useRef,
  useState,
  type ReactNode,
} from 'react';
import * as api from './api';
import { browserLocale, showLanguage } from './i18n';
import { setFormatTimeZone } from './i18n/format';
import { said, saidFailure, type Said } from './said';
import { onOtherTabs, tellOtherTabs } from './session-tabs';

/** The administrator's own choice, else what the browser asks for. */
function languageOf(user: SessionUser): Locale {
  return user.language ?? browserLocale();
}

/** The signed-in user's site conventions, applied before anything renders with them. */
async function adopt(user: SessionUser): Promise<SessionUser> {
  setFormatTimeZone(user.timeZone);
  await showLanguage(languageOf(user));
  return user;
}

/** Nothing loaded stays in memory, and nothing in flight lands later (another account, scope). */
async function forgetLoaded(): Promise<void> {
  await queryClient.cancelQueries();
  queryClient.clear();
}

/** Both work in the same organization (null: all of them). */
const sameOrganization = (a: SessionUser, b: SessionUser) =>
  (a.workingOrganizationId ?? null) === (b.workingOrganizationId ?? null);

export type SessionState =
  | { status: 'loading' }
  /** `notice` is shown on the login page (why the person is there). */
  | { status: 'signedOut'; notice?: Said }
  /**
   * `ended`: the server no longer knows this session (it expired, or was ended elsewhere). The
   * site stays mounted under a sign-in dialog, so what was typed on the page is kept.
   */
  | { status: 'signedIn'; user: SessionUser; ended?: boolean }
  /** The service could not tell whether we are signed in. */
  | { status: 'unavailable'; message: Said };

interface SessionContextValue {
  state: SessionState;
  /** Throws {@link api.ApiError}; the login page turns it into words. */
  signIn: (username: string, password: string, code?: string) => Promise<void>;
  signOut: () => Promise<void>;
  /** Asks the server who we are (after a password change, or a 401/403 elsewhere). */
  refresh: (notice?: Said) => Promise<void>;
  /**
   * A superadmin works in one organization (null: all): every page reloads for it, and
   * nothing loaded for the previous one stays shown.
   */
  chooseOrganization: (organizationId: string | null) => Promise<void>;
  /** Shows the site in `lng` at once and keeps the choice with the administrator. */
  chooseLanguage: (lng: Locale) => Promise<void>;
}

const SessionContext = createContext<SessionContextValue | null>(null);

export function SessionProvider({ children }: { children: ReactNode }) {
  const [state, setState] = useState<SessionState>({ status: 'loading' });
  // The state as last set, for callbacks that decide by it (no stale closure).
  const current = useRef(state);
  const show = useCallback((next: SessionState) => {
    current.current = next;
    setState(next);
  }, []);

  const refresh = useCallback(
    async (notice?: Said) => {
      try {
        const user = await api.me();
        if (user !== null) await adopt(user);
        show(user === null ? { status: 'signedOut', notice } : { status: 'signedIn', user });
      } catch (error) {
        show({ status: 'unavailable', message: saidFailure(error) });
      }
    },
    [show],
  );

  /** A 401 somewhere: signed in before, the page stays and asks to sign in again. */
  const sessionEnded = useCallback(async () => {
    const before = current.current;
    if (before.status !== 'signedIn') {
      await refresh(said('errors.session_expired', { ns: 'shared' }));
      return;
    }
    // Every query still polling says 401 too: one question is enough.
    if (before.ended === true) return;
    try {
      const user = await api.me();
      if (user === null) show({ ...before, ended: true });
    } catch (error) {
      show({ status: 'unavailable', message: saidFailure(error) });
    }
  }, [refresh, show]);

  /**
   * Another tab changed the session this one shares. Still this account: carry on (a question
   * asked here for a session that tab restored is answered); no account, or another: the page
   * stays under the question (SignInAgain), as nothing typed here may be saved as the other.
   */
  const otherTabChanged = useCallback(async () => {
    let user: SessionUser | null;
    try {
      user = await api.me();
    } catch {
      return; // The next request says what is wrong.
    }
    const before = current.current;
    if (before.status !== 'signedIn') {
      if (user !== null) show({ status: 'signedIn', user: await adopt(user) });
      return;
    }
    if (user === null || user.id !== before.user.id) {
      if (before.ended !== true) show({ ...before, ended: true });
      return;
    }
    await adopt(user);
    if (!sameOrganization(user, before.user)) {
      // The pages reload for the organization the session works in now.
      await forgetLoaded();
    } else if (before.ended === true) {
      void queryClient.invalidateQueries();
    }
    show({ status: 'signedIn', user });
  }, [show]);

  useEffect(() => {
    void refresh();
    const stopProblems = api.onSessionProblem((problem) => {
      if (problem === 'unauthorized') void sessionEnded();
      else void refresh();
    });
    const stopTabs = onOtherTabs(() => void otherTabChanged());
    return () => {
      stopProblems();
      stopTabs();
    };
  }, [refresh, sessionEnded, otherTabChanged]);

  const signIn = useCallback(
    async (username: string, password: string, code?: string) => {
      let user = await adopt(await api.login(username, password, code));
      const before = current.current;
      if (before.status === 'signedIn' && before.user.id === user.id) {
        // Back where they were: the same organization, and the pages load again.
        if (!sameOrganization(user, before.user)) {
          // Gone meanwhile: the sign-in's own organization then, and the pages start over.
          const working = before.user.workingOrganizationId ?? null;
          user = await api.chooseOrganization(working).catch(() => user);
        }
        void queryClient.invalidateQueries();
      } else if (before.status === 'signedIn') {
        // Another account: nothing the previous one loaded or typed stays.
        await forgetLoaded();
      }
      show({ status: 'signedIn', user });
      tellOtherTabs('signedIn');
    },
    [show],
  );

  const chooseLanguage = useCallback(
    async (lng: Locale) => {
      await showLanguage(lng);
      const user = await api.setLanguage(lng);
      setFormatTimeZone(user.timeZone);
      show({ status: 'signedIn', user });
    },
    [show],
  );

  const signOut = useCallback(async () => {
    try {
      await api.logout();
    } catch {
      // Signing out locally is what matters; the server session expires on its own.
    }
    // Nothing the previous account loaded stays in memory, and nothing in flight lands later.
    await forgetLoaded();
    show({ status: 'signedOut', notice: said('session.signedOut') });
    tellOtherTabs('signedOut');
  }, [show]);

  const chooseOrganization = useCallback(
    async (organizationId: string | null) => {
      const user = await api.chooseOrganization(organizationId);
      setFormatTimeZone(user.timeZone);
      await forgetLoaded();
      show({ status: 'signedIn', user });
      tellOtherTabs('organization');
    },
    [show],
  );

  const value = useMemo(
    () => ({ state, signIn, signOut, refresh, chooseOrganization, chooseLanguage }),
    [state, signIn, signOut, refresh, chooseOrganization, chooseLanguage],
  );
  return <SessionContext.Provider value={value}>{children}</SessionContext.Provider>;
}

export function useSession(): SessionContextValue {
  const value = useContext(SessionContext);
  if (value === null) throw new Error('useSession must be used inside <SessionProvider>');
  return value;
}
