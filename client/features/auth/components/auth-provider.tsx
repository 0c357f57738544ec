import { lazy, Suspense, useCallback, useMemo, useState, type ComponentType, type ReactNode } from 'react';
import { notify } from '../../../lib/notify.ts';
import type { TLocalLogin } from '../../../../contracts/auth.ts';
import type { TUser } from '../../../../contracts/users.ts';
import { errorMessage } from '../../../lib/api-client.ts';
import { appConfig } from '../../../lib/app-config.ts';
import { useInBrowser } from '../../../lib/in-browser.ts';
import { fetchMe, loginLocal, logoutRequest } from '../api/auth-api.ts';
import { AuthContext, type AuthContextValue } from '../../../lib/auth-context.ts';
import type { SignInFromSession } from './popup-sign-in-host.tsx';

// Google's part of the tab (popup-sign-in-host.tsx), after the first render; if it cannot load
// (a deploy replaced it), sign-in still works from the click, which loads it again.
const PopupSignInHost = lazy<ComponentType<{ signIn: SignInFromSession }>>(() =>
  import('./popup-sign-in-host.tsx').catch(() => ({ default: () => null })),
);

/**
 * Where the signed-in user is kept. The app keeps it in its query cache (app-auth-provider.tsx);
 * the landing page, which loads without the query library, in component state
 * (landing-auth-provider.tsx).
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
  // Not while hydrating: the public pages' HTML is rendered without Google's part.
  const inBrowser = useInBrowser();

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
        notify.error('Login failed', errorMessage(err, 'Failed to sign in', { serverWords: false }));
        return null;
      }
    },
    [signedIn],
  );

  /** After a Google result page reported success: the session it started, with SPEC's toast. */
  const signInFromSession = useCallback(async () => {
    const { user } = await fetchMe();
    return user && signedIn(user);
  }, [signedIn]);

  /** Google's, or the operator's OpenID Connect provider's, sign-in in a popup: one flow for both. */
  const signInWithPopup = useCallback(async () => {
    if (provider === 'local') return null;
    setPopupOpen(true);
    try {
      // Loaded on click: the popup code has no place in the landing page's first load.
      const { signInWithPopupProvider } = await import('./popup-sign-in-host.tsx');
      return await signInWithPopupProvider(signInFromSession, provider);
    } catch (err) {
      notify.error('Login failed', errorMessage(err, provider === 'google' ? 'Failed to sign in with Google' : 'Failed to sign in', { serverWords: false }));
      return null;
    } finally {
      setPopupOpen(false);
    }
  }, [signInFromSession, provider]);

  const signInWith = useCallback(
    async (signIn: () => Promise<{ user: TUser }>, describeFailure: (err: unknown) => string) => {
      try {
        const { user } = await signIn();
        return signedIn(user);
      } catch (err) {
        notify.error('Login failed', describeFailure(err));
        return null;
      }
    },
    [signedIn],
  );

  const logout = useCallback(async () => {
    try {
      await logoutRequest();
      setUser(null);
      notify.success('Logged out', 'You have been logged out successfully.');
    } catch (err) {
      notify.error('Logout failed', errorMessage(err, 'Failed to log out', { serverWords: false }));
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
      signInWithPopup,
      signInWith,
      logout,
    };
  }, [sessionUser, popupOpen, provider, signInLocal, signInWithPopup, signInWith, logout]);

  return (
    <AuthContext.Provider value={value}>
      {children}
      {inBrowser && provider !== 'local' && (
        <Suspense fallback={null}>
          <PopupSignInHost signIn={signInFromSession} />
        </Suspense>
      )}
    </AuthContext.Provider>
  );
}
