import { useQuery, useQueryClient } from '@tanstack/react-query';
import { useCallback, useMemo, type ReactNode } from 'react';
import type { TMe, TUser } from '../../../contracts/auth.ts';
import { fetchMe, ME_QUERY_KEY } from './api/auth-api.ts';
import { AuthProvider, type SessionStore } from './auth-provider.tsx';

/** The session in the app's query cache, where screens that change the user (the users page)
 * invalidate it. */
function useQuerySession(): SessionStore {
  const queryClient = useQueryClient();
  const me = useQuery({ queryKey: ME_QUERY_KEY, queryFn: ({ signal }) => fetchMe(signal) });
  const setUser = useCallback((user: TUser | null) => queryClient.setQueryData<TMe>(ME_QUERY_KEY, { user }), [queryClient]);
  const clearCache = useCallback(() => queryClient.clear(), [queryClient]);
  // A failed session request leaves the visitor signed out rather than loading forever.
  const user = me.isPending ? undefined : (me.data?.user ?? null);
  return useMemo(() => ({ user, setUser, clearCache }), [user, setUser, clearCache]);
}

/** The app's auth context; inside a QueryClientProvider and a router. */
export function AppAuthProvider({ children }: { children: ReactNode }) {
  return <AuthProvider session={useQuerySession()}>{children}</AuthProvider>;
}
