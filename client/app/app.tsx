import { QueryClientProvider, type QueryClient } from '@tanstack/react-query';
import { lazy, Suspense, useState } from 'react';
import { BrowserRouter } from 'react-router';
import { AppAuthProvider } from '../features/auth/components/app-auth-provider.tsx';
import { createQueryClient } from '../lib/query-client.ts';
import { AppRoutes } from './router.tsx';
import { RouterNavigation } from './router-navigation.tsx';

// After the first paint, on its own: the Settings zone comes with a request anyway, and the first
// load's script budget has no room for it (docs/decisions/0066).
const TimeZoneSync = lazy(() => import('../features/settings/components/time-zone-sync.tsx'));

/** The whole app; `queryClient` when the caller has already put something in its cache (a
 * public page handing over: client/app/handover.tsx). */
export function App({ queryClient: given }: { queryClient?: QueryClient }) {
  const [queryClient] = useState(() => given ?? createQueryClient());
  return (
    <QueryClientProvider client={queryClient}>
      {/* The AuthProvider sits inside the router so a sign-in that completes late can apply
          SPEC's post-login redirect itself. */}
      <BrowserRouter>
        <RouterNavigation>
          <AppAuthProvider>
            <Suspense fallback={null}>
              <TimeZoneSync />
            </Suspense>
            <AppRoutes />
          </AppAuthProvider>
        </RouterNavigation>
      </BrowserRouter>
    </QueryClientProvider>
  );
}
