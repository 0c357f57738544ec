import { lazy, Suspense } from 'react';
import { Navigate, Outlet } from 'react-router';
import type { TRole } from '../../contracts/users.ts';
import { FullPageSpinner } from '../components/ui/spinner.tsx';
import { useAuth } from '../lib/auth-context.ts';

// Few ever see it (a guest following an admin's link), and every page's first load carries this
// guard: it loads when it is shown, the spinner meanwhile.
const AccessDenied = lazy(() => import('../components/access-denied.tsx').then((m) => ({ default: m.AccessDenied })));

/** Route guard: a spinner while the session is being determined, signed-out visitors back to
 * /, and the Access Denied screen when the role falls short. Admin passes every check. The
 * server enforces the same rules on every call; this only decides what to show. */
export function RequireAuth({ role }: { role?: TRole }) {
  const { user, role: currentRole, loading } = useAuth();
  if (loading) return <FullPageSpinner />;
  if (!user) return <Navigate to="/" replace />;
  if (role && currentRole !== 'admin' && currentRole !== role) {
    return (
      <Suspense fallback={<FullPageSpinner />}>
        <AccessDenied requiredRole={role} currentRole={currentRole} />
      </Suspense>
    );
  }
  return <Outlet />;
}
