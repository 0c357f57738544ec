import { QueryClientProvider, type QueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { BrowserRouter } from 'react-router';
import { ToastHost } from '../components/ui/toast-host.tsx';
import { AuthProvider } from '../features/auth/auth-provider.tsx';
import { createQueryClient } from '../lib/query-client.ts';
import { AppRoutes } from './router.tsx';

export function App({ queryClient: given }: { queryClient?: QueryClient }) {
  const [queryClient] = useState(() => given ?? createQueryClient());
  return (
    <QueryClientProvider client={queryClient}>
      {/* The AuthProvider sits inside the router so a sign-in that completes late can apply
          SPEC's post-login redirect itself. */}
      <BrowserRouter>
        <AuthProvider>
          <AppRoutes />
          <ToastHost />
        </AuthProvider>
      </BrowserRouter>
    </QueryClientProvider>
  );
}
