import { AccessDenied } from '../../../components/access-denied.tsx';
import { usePageTitle } from '../../../components/ui/use-page-title.ts';
import { useAuth } from '../../../lib/auth-context.ts';
import { ArticleForm, ArticleFormScreen } from './article-form.tsx';

/** /create-article (signed in; admins only, checked here). */
export default function CreateArticlePage() {
  usePageTitle('Create Article');
  const { role } = useAuth();
  // SPEC: this screen checks the admin role itself (the route only requires a session).
  if (role !== 'admin') return <AccessDenied requiredRole="admin" currentRole={role} message="Access denied. Only administrators can create articles." />;
  return (
    <ArticleFormScreen title="Create Article" intro="Write an article in Markdown. It stays a draft until you publish it.">
      <ArticleForm />
    </ArticleFormScreen>
  );
}
