import { useQuery, useQueryClient, type QueryClient } from '@tanstack/react-query';
import { useCallback, useEffect, useMemo, useRef, type ReactNode } from 'react';
import type { TMe } from '../../../../contracts/auth.ts';
import type { TUser } from '../../../../contracts/users.ts';
import { fetchMe, ME_QUERY_KEY } from '../api/auth-api.ts';
import { AuthProvider, type SessionStore } from './auth-provider.tsx';

/**
 * When the session's user goes away (sign-out, or a session found ended) or changes, forgets
 * that user's cached answers; removing a query also cancels its request in flight.
 *
 * It runs after the commit that showed the new session, so the parts of the screen that
 * depended on the user (header links, avatar, bell, guarded screens) have already unmounted and
 * let go of their queries. Only queries nobody observes go: removing a query under a mounted
 * observer detaches it, and that observer's next render rebuilds the query and fetches it again
 * (issue 13: `queryClient.clear()` at sign-out left the header signed in and the bell asking
 * for notifications with no session). The session's own query is observed by this provider, so
 * it stays and goes on telling it who is signed in.
 */
function useForgetPreviousUser(queryClient: QueryClient, user: TUser | null | undefined): void {
  const previousId = useRef<string | null>(null);
  useEffect(() => {
    if (user === undefined) return;
    if (previousId.current && previousId.current !== user?.id) queryClient.removeQueries({ predicate: (query) => !query.getObserversCount() });
    previousId.current = user?.id ?? null;
  }, [queryClient, user]);
}

/** The session in the app's query cache, where screens that change the user (the users page)
 * invalidate it. */
function useQuerySession(): SessionStore {
  const queryClient = useQueryClient();
  const me = useQuery({ queryKey: ME_QUERY_KEY, queryFn: ({ signal }) => fetchMe(signal) });
  const setUser = useCallback((user: TUser | null) => queryClient.setQueryData<TMe>(ME_QUERY_KEY, { user }), [queryClient]);
  // A failed session request leaves the visitor signed out rather than loading forever.
  const user = me.isPending ? undefined : (me.data?.user ?? null);
  useForgetPreviousUser(queryClient, user);
  return useMemo(() => ({ user, setUser }), [user, setUser]);
}

/** The app's auth context; inside a QueryClientProvider and a router. */
export function AppAuthProvider({ children }: { children: ReactNode }) {
  return <AuthProvider session={useQuerySession()}>{children}</AuthProvider>;
}
