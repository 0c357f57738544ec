import { FileQuestion } from 'lucide-react';
import { Link } from 'react-router';

/**
 * /insights/:slug for an article that does not exist or is not published (the server answers
 * 404). Visitors see what is missing and the way to the others; SPEC's 404 screen, with its
 * hint for developers, stays for paths that are not pages at all.
 */
export function ArticleNotFound() {
  return (
    <section className="flex min-h-[60vh] items-center justify-center px-6" aria-labelledby="article-not-found-title">
      <div className="w-full max-w-md rounded-lg border border-slate-200 bg-white p-6 shadow-sm">
        <div className="flex items-center gap-2">
          <FileQuestion aria-hidden="true" className="size-8 text-brand-700" />
          <h1 id="article-not-found-title" className="text-2xl font-bold text-slate-900">
            Article not found
          </h1>
        </div>
        <p className="mt-4 text-sm text-slate-600">There is no published article at this address. It may have been renamed or taken down.</p>
        <Link to="/insights" className="mt-6 inline-flex items-center text-sm font-medium text-brand-700 hover:underline">
          See all insights
        </Link>
      </div>
    </section>
  );
}
