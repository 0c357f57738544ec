import { FileQuestion } from 'lucide-react';
import { Link } from 'react-router';
import { NotFoundScreen } from '../../../components/not-found.tsx';

/**
 * /insights/:slug for an article that does not exist or is not published (the server answers
 * 404). Visitors see what is missing and the way to the others; SPEC's 404 screen, with its
 * hint for developers, stays for paths that are not pages at all.
 */
export function ArticleNotFound() {
  return (
    <NotFoundScreen title="Article not found" icon={<FileQuestion aria-hidden="true" className="size-8 text-brand-700" />}>
      <p className="mt-4 text-sm text-slate-600">There is no published article at this address. It may have been renamed or taken down.</p>
      <Link to="/insights" className="mt-6 inline-flex items-center text-sm font-medium text-brand-700 hover:underline">
        See all insights
      </Link>
    </NotFoundScreen>
  );
}
