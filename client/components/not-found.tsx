import { AlertCircle } from 'lucide-react';
import { useId, type ReactNode } from 'react';

/** A centred card saying what is not here, and what to do instead. */
export function NotFoundScreen({ title, icon, children }: { title: string; icon: ReactNode; children: ReactNode }) {
  const titleId = useId();
  return (
    <section className="flex min-h-[60vh] items-center justify-center px-6" aria-labelledby={titleId}>
      <div className="w-full max-w-md rounded-lg border border-slate-200 bg-white p-6 shadow-sm">
        <div className="flex items-center gap-2">
          {icon}
          <h1 id={titleId} className="text-2xl font-bold text-slate-900">
            {title}
          </h1>
        </div>
        {children}
      </div>
    </section>
  );
}

/** SPEC's screen for a path that is no page of the router. */
export function NotFoundPage() {
  return (
    <NotFoundScreen title="404 Page Not Found" icon={<AlertCircle aria-hidden="true" className="size-8 text-red-500" />}>
      <p className="mt-4 text-sm text-slate-600">Did you forget to add the page to the router?</p>
    </NotFoundScreen>
  );
}
