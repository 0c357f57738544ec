import { useQuery, useQueryClient, type Query, type QueryClient } from '@tanstack/react-query';
import { useCallback, useEffect, useMemo, useRef, type ReactNode } from 'react';
import type { TMe, TUser } from '../../../contracts/auth.ts';
import { fetchMe, ME_QUERY_KEY } from './api/auth-api.ts';
import { AuthProvider, type SessionStore } from './auth-provider.tsx';

const isSession = (query: Query) => query.queryKey[0] === ME_QUERY_KEY[0];

/**
 * When the session's user goes away (sign-out, or a session found ended) or changes, forgets
 * that user's cached answers: their in-flight requests are cancelled, their queries removed.
 *
 * It runs after the commit that showed the new session, so the parts of the screen that
 * depended on the user (header links, avatar, bell, guarded screens) have already unmounted and
 * let go of their queries. Only queries nobody observes go: removing a query under a mounted
 * observer detaches it, and that observer's next render rebuilds the query and fetches it again
 * (issue 13: `queryClient.clear()` at sign-out left the header signed in and the bell asking
 * for notifications with no session). The session's own query stays, so its observer keeps
 * hearing about the user.
 */
function useForgetPreviousUser(queryClient: QueryClient, user: TUser | null | undefined): void {
  const previous = useRef(user);
  useEffect(() => {
    const was = previous.current;
    if (user === undefined) return;
    previous.current = user;
    if (!was || user?.id === was.id) return;
    const previousUsersData = { predicate: (query: Query) => !isSession(query) && query.getObserversCount() === 0 };
    void queryClient.cancelQueries(previousUsersData).then(() => queryClient.removeQueries(previousUsersData));
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
