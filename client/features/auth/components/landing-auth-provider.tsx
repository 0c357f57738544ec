import { useEffect, useMemo, useState, type ReactNode } from 'react';
import type { TUser } from '../../../../contracts/users.ts';
import { fetchMe } from '../api/auth-api.ts';
import { AuthProvider } from './auth-provider.tsx';

/**
 * The landing page's auth context, without the query library the landing page does not load:
 * the session is asked for once and kept in state. A signed-in user (at load, or after signing
 * in with Google here) is handed to `onSignedIn`, which opens the whole app.
 */
export function LandingAuthProvider({ onSignedIn, children }: { onSignedIn(user: TUser): void; children: ReactNode }) {
  const [user, setUser] = useState<TUser | null | undefined>(undefined);

  useEffect(() => {
    const controller = new AbortController();
    fetchMe(controller.signal).then(
      (me) => setUser(me.user),
      // The request helper has logged the failure; a visitor we cannot identify is signed out.
      () => {
        if (!controller.signal.aborted) setUser(null);
      },
    );
    return () => controller.abort();
  }, []);

  useEffect(() => {
    if (user) onSignedIn(user);
  }, [user, onSignedIn]);

  // A signed-in user is the app's to show (its header has controls the landing page does not
  // load): until the app takes over, the session reads as still loading.
  const shown = user ? undefined : user;
  const session = useMemo(() => ({ user: shown, setUser }), [shown]);
  return <AuthProvider session={session}>{children}</AuthProvider>;
}
