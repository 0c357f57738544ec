import { useState, type FormEvent } from 'react';
import { Navigate, useLocation, useNavigate } from 'react-router';
import type { TInviteOptions } from '../../../../contracts/passkeys.ts';
import type { TUser } from '../../../../contracts/users.ts';
import { Button } from '../../../components/ui/button.tsx';
import { Card } from '../../../components/ui/card.tsx';
import { usePageTitle } from '../../../components/ui/use-page-title.ts';
import { apiRequest } from '../../../lib/api-client.ts';
import { useAuth } from '../../../lib/auth-context.ts';
import { createPasskey } from '../../../lib/webauthn.ts';
import { describePasskeyFailure } from './passkey-sign-in.tsx';

const INPUT =
  'mt-1 block w-full rounded-md border border-slate-300 bg-white px-3 py-2 text-slate-900 shadow-sm placeholder:text-slate-500 ' +
  'focus:border-brand-600 focus:outline-2 focus:outline-offset-0 focus:outline-brand-600';

/**
 * /invite#<token> (docs/decisions/0092): the invited person creates their passkey and is signed
 * in. The token rides in the fragment, which the browser never sends, and goes to the server in
 * the body of the two requests only.
 */
export default function InvitePage() {
  usePageTitle('Create your passkey');
  const { user, signInWith } = useAuth();
  const { hash } = useLocation();
  const navigate = useNavigate();
  const [submitting, setSubmitting] = useState(false);
  const [problem, setProblem] = useState<string | null>(null);
  const token = hash.replace(/^#/, '');

  if (user && !submitting) return <Navigate to="/dashboard" replace />;

  const onSubmit = async (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    const name = String(new FormData(event.currentTarget).get('name') ?? '');
    setSubmitting(true);
    setProblem(null);
    const signedIn = await signInWith(
      async () => {
        const { options } = await apiRequest<TInviteOptions>('POST', '/api/auth/invite/options', { token });
        const credential = await createPasskey(options);
        return apiRequest<{ user: TUser }>('POST', '/api/auth/invite/verify', { token, name, credential });
      },
      (err) => {
        const message = describePasskeyFailure(err);
        setProblem(message);
        return message;
      },
    );
    if (signedIn) navigate('/dashboard', { replace: true });
    else setSubmitting(false);
  };

  return (
    <div className="flex justify-center px-4 py-16">
      <Card className="w-full max-w-md p-6 sm:p-8">
        <h1 className="text-2xl font-bold text-slate-900">Create your passkey</h1>
        {token ? (
          <>
            <p className="mt-2 text-slate-600">
              You were invited to sign in here with a passkey: your device keeps it, unlocked by your fingerprint, face or PIN, and no password is ever sent. This link works once.
            </p>
            <form className="mt-6 space-y-4" onSubmit={(event) => void onSubmit(event)}>
              <div>
                <label htmlFor="invite-passkey-name" className="block text-sm font-medium text-slate-900">
                  Name this passkey
                </label>
                <input id="invite-passkey-name" name="name" type="text" required maxLength={60} defaultValue="My passkey" className={INPUT} aria-describedby="invite-passkey-name-hint" />
                <p id="invite-passkey-name-hint" className="mt-1 text-sm text-slate-600">
                  So you can tell your passkeys apart at Settings, e.g. “Work laptop”.
                </p>
              </div>
              {problem && (
                <p role="alert" className="text-sm font-medium text-red-700">
                  {problem}
                </p>
              )}
              <Button type="submit" size="lg" className="w-full" disabled={submitting} aria-busy={submitting}>
                {submitting ? 'Creating passkey…' : 'Create passkey and sign in'}
              </Button>
            </form>
          </>
        ) : (
          <p role="alert" className="mt-2 text-slate-600">
            This invite link is not complete. Open it again from your email, or ask the person who invited you for a new one.
          </p>
        )}
      </Card>
    </div>
  );
}
