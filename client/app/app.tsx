import { QueryClientProvider, type QueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { BrowserRouter } from 'react-router';
import type { TMe, TUser } from '../../contracts/auth.ts';
import { ME_QUERY_KEY } from '../features/auth/api/auth-api.ts';
import { AppAuthProvider } from '../features/auth/app-auth-provider.tsx';
import { createQueryClient } from '../lib/query-client.ts';
import { AppRoutes } from './router.tsx';
import { RouterNavigation } from './router-navigation.tsx';

/** The whole app. `user` is the session when the landing page already knows it (it opens the
 * app for a signed-in visitor), so the app does not ask again. */
export function App({ queryClient: given, user }: { queryClient?: QueryClient; user?: TUser }) {
  const [queryClient] = useState(() => {
    const client = given ?? createQueryClient();
    if (user) client.setQueryData<TMe>(ME_QUERY_KEY, { user });
    return client;
  });
  return (
    <QueryClientProvider client={queryClient}>
      {/* The AuthProvider sits inside the router so a sign-in that completes late can apply
          SPEC's post-login redirect itself. */}
      <BrowserRouter>
        <RouterNavigation>
          <AppAuthProvider>
            <AppRoutes />
          </AppAuthProvider>
        </RouterNavigation>
      </BrowserRouter>
    </QueryClientProvider>
  );
}
