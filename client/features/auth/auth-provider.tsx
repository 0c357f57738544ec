import { useCallback, useEffect, useMemo, useRef, useState, type ReactNode } from 'react';
import { notify } from '../../lib/notify.ts';
import type { TLocalLogin, TUser } from '../../../contracts/auth.ts';
import { appConfig } from '../../lib/app-config.ts';
import { useNavigation } from '../../lib/navigation.ts';
import { fetchMe, loginLocal, logoutRequest } from './api/auth-api.ts';
import { AuthContext, type AuthContextValue } from '../../lib/auth-context.ts';
import { postLoginPath } from './post-login-path.ts';

/** Kept in step with google-popup.ts, which is loaded only on click. */
const GOOGLE_RESULT_CHANNEL = 'auth';
const GOOGLE_RESULT_TYPE = 'auth:google';

const errorMessage = (err: unknown, fallback: string) => (err instanceof Error && err.message ? err.message : fallback);

/**
 * Where the signed-in user is kept. The app keeps it in its query cache (query-session.ts); the
 * landing page, which loads without the query library, in component state (landing-session.ts).
 */
export type SessionStore = {
  /** The session's user, null when signed out, undefined until known. */
  user: TUser | null | undefined;
  /** Sets the session's user; null signs out, and every part of the screen that depends on the
   * user follows at once (the app's store then forgets that user's cached answers). */
  setUser(user: TUser | null): void;
};

/** The auth context for the app and the landing page: sign-in, sign-out and SPEC's toasts, over
 * whichever session store the caller gives. */
export function AuthProvider({ session, children }: { session: SessionStore; children: ReactNode }) {
  const { user: sessionUser, setUser } = session;
  const [popupOpen, setPopupOpen] = useState(false);
  const provider = appConfig().authProvider;

  const signedIn = useCallback(
    (user: TUser) => {
      setUser(user);
      notify.success('Login successful', `Welcome, ${user.name || 'user'}!`);
      return user;
    },
    [setUser],
  );

  const signInLocal = useCallback(
    async (input: TLocalLogin) => {
      try {
        const { user } = await loginLocal(input);
        return signedIn(user);
      } catch (err) {
        notify.error('Login failed', errorMessage(err, 'Failed to sign in'));
        return null;
      }
    },
    [signedIn],
  );

  const signInWithGoogle = useCallback(async () => {
    setPopupOpen(true);
    try {
      // Loaded on click: the popup code has no place in the landing page's first load.
      const { openGoogleSignIn } = await import('./google-popup.ts');
      const outcome = await openGoogleSignIn();
      const { user } = await fetchMe();
      if (user) return signedIn(user);
      // A popup that merely looks closed may still be signing in (see google-popup.ts); its
      // result is picked up by the channel listener below, so this is not a failure yet.
      if (outcome === 'closed') return null;
      throw new Error('Failed to sign in with Google');
    } catch (err) {
      notify.error('Login failed', errorMessage(err, 'Failed to sign in with Google'));
      return null;
    } finally {
      setPopupOpen(false);
    }
  }, [signedIn]);

  // A Google sign-in that reports after its popup looked closed: finish it here, with SPEC's
  // redirect (from / or /login to /dashboard, elsewhere stay).
  const { pathname, navigate } = useNavigation();
  const pathnameRef = useRef(pathname);
  useEffect(() => {
    pathnameRef.current = pathname;
  }, [pathname]);
  const userRef = useRef(sessionUser);
  useEffect(() => {
    userRef.current = sessionUser;
  }, [sessionUser]);
  useEffect(() => {
    if (provider !== 'google' || typeof BroadcastChannel !== 'function') return;
    const channel = new BroadcastChannel(GOOGLE_RESULT_CHANNEL);
    channel.onmessage = async (event: MessageEvent<{ type?: unknown; ok?: unknown }>) => {
      if (event.data?.type !== GOOGLE_RESULT_TYPE || event.data.ok !== true) return;
      if (userRef.current) return; // already handled
      try {
        const { user } = await fetchMe();
        if (!user) return;
        signedIn(user);
        const here = pathnameRef.current;
        const next = postLoginPath(here);
        if (next && next !== here) navigate(next);
      } catch (err) {
        notify.error('Login failed', errorMessage(err, 'Failed to sign in with Google'));
      }
    };
    return () => channel.close();
  }, [provider, signedIn, navigate]);

  const logout = useCallback(async () => {
    try {
      await logoutRequest();
      setUser(null);
      notify.success('Logged out', 'You have been logged out successfully.');
    } catch (err) {
      notify.error('Logout failed', errorMessage(err, 'Failed to log out'));
      throw err;
    }
  }, [setUser]);

  const value = useMemo<AuthContextValue>(() => {
    const user = sessionUser ?? null;
    return {
      user,
      role: user?.role ?? 'guest',
      loading: sessionUser === undefined || popupOpen,
      provider,
      signInLocal,
      signInWithGoogle,
      logout,
    };
  }, [sessionUser, popupOpen, provider, signInLocal, signInWithGoogle, logout]);

  return <AuthContext.Provider value={value}>{children}</AuthContext.Provider>;
}
