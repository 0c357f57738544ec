import { Suspense } from 'react';
import { Outlet, useLocation } from 'react-router';
import { FullPageSpinner } from '../components/ui/spinner.tsx';
import { ErrorBoundary } from './error-boundary.tsx';

// Placeholder header: replaced by the header work.
export function AppLayout() {
  const { pathname } = useLocation();
  return (
    <main id="main">
      <ErrorBoundary resetKey={pathname}>
        <Suspense fallback={<FullPageSpinner />}>
          <Outlet />
        </Suspense>
      </ErrorBoundary>
    </main>
  );
}
