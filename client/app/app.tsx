import { QueryClientProvider, type QueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { ToastHost } from '../components/ui/toast-host.tsx';
import { AuthProvider } from '../features/auth/auth-provider.tsx';
import { createQueryClient } from '../lib/query-client.ts';
import { AppRouter } from './router.tsx';

export function App({ queryClient: given }: { queryClient?: QueryClient }) {
  const [queryClient] = useState(() => given ?? createQueryClient());
  return (
    <QueryClientProvider client={queryClient}>
      <AuthProvider>
        <AppRouter />
        <ToastHost />
      </AuthProvider>
    </QueryClientProvider>
  );
}
