import { Link } from 'react-router';
import type { TRole } from '../../contracts/users.ts';
import { buttonClasses } from './ui/button.tsx';
import { StrokeIcon } from './ui/stroke-icon.tsx';

/**
 * SPEC's Access Denied screen: what the page needs, the user's current role (or guest) and a
 * way back. A screen may say why in its own words (create-article has SPEC's sentence).
 */
export function AccessDenied({ requiredRole, currentRole, message }: { requiredRole: TRole; currentRole: TRole | null; message?: string }) {
  return (
    <section className="mx-auto flex max-w-lg flex-col items-center px-6 py-20 text-center" aria-labelledby="access-denied-title">
      <StrokeIcon className="mb-4 size-12 text-red-600">
        <path d="M20 13c0 5-3.5 7.5-7.66 8.95a1 1 0 0 1-.67-.01C7.5 20.5 4 18 4 13V6a1 1 0 0 1 1-1c2 0 4.5-1.2 6.24-2.72a1.17 1.17 0 0 1 1.52 0C14.51 3.81 17 5 19 5a1 1 0 0 1 1 1zM12 8v4M12 16h.01" />
      </StrokeIcon>
      <h1 id="access-denied-title" className="text-3xl font-bold text-slate-900">
        Access Denied
      </h1>
      <p className="mt-3 text-slate-600">
        {message ?? (
          <>
            This page requires the <strong>{requiredRole}</strong> role.
          </>
        )}
      </p>
      <p className="mt-1 text-slate-600">
        Your current role: <strong>{currentRole ?? 'guest'}</strong>
      </p>
      <Link to="/dashboard" className={buttonClasses({ className: 'mt-8' })}>
        Back to Dashboard
      </Link>
    </section>
  );
}
