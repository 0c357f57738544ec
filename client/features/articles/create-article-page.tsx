import { Link } from 'react-router';
import { StrokeIcon } from '../../components/ui/stroke-icon.tsx';
import { buttonClasses } from '../../components/ui/button.tsx';
import { usePageTitle } from '../../components/ui/use-page-title.ts';
import { useAuth } from '../../lib/auth-context.ts';
import { ArticleForm, ArticleFormScreen } from './article-form.tsx';

/** SPEC: the screen checks the admin role itself (the route only requires a session). The
 * panel keeps the Access Denied screen's heading, current role and way back. */
function CreateDenied({ role }: { role: string }) {
  return (
    <section className="mx-auto flex max-w-lg flex-col items-center px-6 py-20 text-center" aria-labelledby="create-denied-title">
      <StrokeIcon className="mb-4 size-12 text-red-600">
        <path d="M20 13c0 5-3.5 7.5-7.66 8.95a1 1 0 0 1-.67-.01C7.5 20.5 4 18 4 13V6a1 1 0 0 1 1-1c2 0 4.5-1.2 6.24-2.72a1.17 1.17 0 0 1 1.52 0C14.51 3.81 17 5 19 5a1 1 0 0 1 1 1zM12 8v4M12 16h.01" />
      </StrokeIcon>
      <h1 id="create-denied-title" className="text-3xl font-bold text-slate-900">
        Access Denied
      </h1>
      <p className="mt-3 text-slate-600">Access denied. Only administrators can create articles.</p>
      <p className="mt-1 text-slate-600">
        Your current role: <strong>{role}</strong>
      </p>
      <Link to="/dashboard" className={buttonClasses({ className: 'mt-8' })}>
        Back to Dashboard
      </Link>
    </section>
  );
}

/** /create-article (signed in; admins only, checked here). */
export default function CreateArticlePage() {
  usePageTitle('Create Article');
  const { role } = useAuth();
  if (role !== 'admin') return <CreateDenied role={role} />;
  return (
    <ArticleFormScreen title="Create Article" intro="Write an article in Markdown. It stays a draft until you publish it.">
      <ArticleForm />
    </ArticleFormScreen>
  );
}
