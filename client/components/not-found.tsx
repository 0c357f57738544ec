import { AlertCircle } from 'lucide-react';

export function NotFoundPage() {
  return (
    <section className="flex min-h-[60vh] items-center justify-center px-6" aria-labelledby="not-found-title">
      <div className="w-full max-w-md rounded-lg border border-slate-200 bg-white p-6 shadow-sm">
        <div className="flex items-center gap-2">
          <AlertCircle aria-hidden="true" className="size-8 text-red-500" />
          <h1 id="not-found-title" className="text-2xl font-bold text-slate-900">
            404 Page Not Found
          </h1>
        </div>
        <p className="mt-4 text-sm text-slate-600">Did you forget to add the page to the router?</p>
      </div>
    </section>
  );
}
