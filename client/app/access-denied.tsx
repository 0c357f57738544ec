import { ShieldAlert } from 'lucide-react';
import { Link } from 'react-router';
import type { TRole } from '../../contracts/auth.ts';

export function AccessDenied({ requiredRole, currentRole }: { requiredRole: TRole; currentRole: TRole | null }) {
  return (
    <section className="mx-auto flex max-w-lg flex-col items-center px-6 py-20 text-center" aria-labelledby="access-denied-title">
      <ShieldAlert aria-hidden="true" className="mb-4 size-12 text-red-600" />
      <h1 id="access-denied-title" className="text-3xl font-bold text-slate-900">
        Access Denied
      </h1>
      <p className="mt-3 text-slate-600">
        This page requires the <strong>{requiredRole}</strong> role.
      </p>
      <p className="mt-1 text-slate-600">
        Your current role: <strong>{currentRole ?? 'guest'}</strong>
      </p>
      <Link
        to="/dashboard"
        className="mt-8 inline-flex items-center rounded-md bg-brand-600 px-4 py-2 font-medium text-white hover:bg-brand-700 focus-visible:outline-2 focus-visible:outline-offset-2 focus-visible:outline-brand-600"
      >
        Back to Dashboard
      </Link>
    </section>
  );
}
