import { ArrowLeft } from 'lucide-react';
import { Link } from 'react-router';

/** The admin screens whose features land in later issues: an honest notice, not a fake screen. */
export function PendingScreen({ title }: { title: string }) {
  return (
    <section className="mx-auto max-w-2xl px-6 py-16">
      <Link to="/dashboard" className="inline-flex items-center gap-1 text-sm text-brand-700 hover:underline">
        <ArrowLeft aria-hidden="true" className="size-4" /> Back to Dashboard
      </Link>
      <h1 className="mt-6 text-3xl font-bold text-slate-900">{title}</h1>
      <p className="mt-3 text-slate-600">This part of the product is not available yet in this version.</p>
    </section>
  );
}
