import { useState, type FormEvent } from 'react';
import { Navigate, useNavigate, useSearchParams } from 'react-router';
import { Button } from '../../../components/ui/button.tsx';
import { Card } from '../../../components/ui/card.tsx';
import { FullPageSpinner } from '../../../components/ui/spinner.tsx';
import { usePageTitle } from '../../../components/ui/use-page-title.ts';
import { appConfig } from '../../../lib/app-config.ts';
import { useAuth } from '../../../lib/auth-context.ts';
import { pathAfterLogin } from '../lib/next-path.ts';
import { PasskeySignIn } from './passkey-sign-in.tsx';

const INPUT =
  'mt-1 block w-full rounded-md border border-slate-300 bg-white px-3 py-2 text-slate-900 shadow-sm placeholder:text-slate-500 ' +
  'focus:border-brand-600 focus:outline-2 focus:outline-offset-0 focus:outline-brand-600';

/**
 * /login: local sign-in (email and name) in local mode, the Google popup in google mode, the
 * operator's OpenID Connect provider in a popup in oidc mode, with the button it names. After
 * signing in the user goes to `?next=` (a path on this site, else /dashboard; / and /login mean /dashboard);
 * someone already signed in is sent to /dashboard.
 */
export default function LoginPage() {
  usePageTitle('Sign in');
  const { user, loading, provider, signInLocal, signInWithPopup } = useAuth();
  const [params] = useSearchParams();
  const navigate = useNavigate();
  // While this page signs someone in, the "already signed in" redirect below must not race
  // the navigation to `next`.
  const [submitting, setSubmitting] = useState(false);
  const target = pathAfterLogin(params.get('next'));
  // Passkey accounts (docs/decisions/0092): without a provider; in production the only sign-in.
  const { passkeys = false, localSignIn = true } = appConfig();

  if (user && !submitting) return <Navigate to="/dashboard" replace />;
  if (loading && !submitting) return <FullPageSpinner />;

  /** Signs in; on success goes to `next` and stays "submitting" until this page is gone (the
   * router applies navigations as transitions, after the redirect above would fire). Failures
   * are reported by the auth provider's 'Login failed' toast. */
  const run = async (signIn: () => Promise<unknown>) => {
    setSubmitting(true);
    let signedIn: unknown = null;
    try {
      signedIn = await signIn();
    } finally {
      if (!signedIn) setSubmitting(false);
    }
    if (signedIn) navigate(target, { replace: true });
  };

  const onSubmit = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    const form = new FormData(event.currentTarget);
    void run(() => signInLocal({ email: String(form.get('email') ?? ''), name: String(form.get('name') ?? '') }));
  };

  return (
    <div className="flex justify-center px-4 py-16">
      <Card className="w-full max-w-md p-6 sm:p-8">
        <h1 className="text-2xl font-bold text-slate-900">Sign in</h1>
        {provider !== 'local' ? (
          <>
            <p className="mt-2 text-slate-600">
              {provider === 'google' ? 'Use your Google account to continue.' : "Use your organization's account to continue."}
            </p>
            <Button className="mt-6 w-full" size="lg" onClick={() => void run(signInWithPopup)} disabled={submitting}>
              {submitting ? 'Signing in…' : provider === 'google' ? 'Sign in with Google' : (appConfig().signInLabel ?? 'Sign in with SSO')}
            </Button>
          </>
        ) : localSignIn ? (
          <>
            <p className="mt-3 rounded-md border border-amber-200 bg-amber-50 px-3 py-2 text-sm text-amber-900">
              Local sign-in for development. Anyone with access to this server can sign in with any email.
            </p>
            <form className="mt-6 space-y-4" onSubmit={onSubmit}>
              <div>
                <label htmlFor="login-email" className="block text-sm font-medium text-slate-900">
                  Email
                </label>
                <input id="login-email" name="email" type="email" autoComplete="email" required maxLength={254} className={INPUT} />
              </div>
              <div>
                <label htmlFor="login-name" className="block text-sm font-medium text-slate-900">
                  Name
                </label>
                <input id="login-name" name="name" type="text" autoComplete="name" required maxLength={100} className={INPUT} />
              </div>
              <Button type="submit" size="lg" className="w-full" disabled={submitting}>
                {submitting ? 'Signing in…' : 'Sign in'}
              </Button>
            </form>
          </>
        ) : (
          <p className="mt-2 text-slate-600">Use the passkey you created from your invite.</p>
        )}
        {passkeys && (
          <div className={localSignIn ? 'mt-6 border-t border-slate-200 pt-6' : 'mt-6'}>
            <PasskeySignIn run={run} disabled={submitting} />
          </div>
        )}
      </Card>
    </div>
  );
}
