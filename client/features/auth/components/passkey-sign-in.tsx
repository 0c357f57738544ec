import type { TUser } from '../../../../contracts/users.ts';
import { Button } from '../../../components/ui/button.tsx';
import { ApiError, errorMessage } from '../../../lib/api-client.ts';
import { useAuth } from '../../../lib/auth-context.ts';
import { passkeyProblem, signInWithPasskeyRequest } from '../../../lib/webauthn.ts';

/** The server's own words when it refused (a removed passkey, a stale request), else the browser's. */
export function describePasskeyFailure(err: unknown): string {
  return err instanceof ApiError ? errorMessage(err, 'Failed to sign in with a passkey') : passkeyProblem(err);
}

/**
 * "Sign in with a passkey" (docs/decisions/0092): the browser offers this site's passkeys
 * (discoverable credentials, no email asked first); the server checks the answer and starts a
 * session. `run` is the sign-in page's wrapper, which goes on to `next`.
 */
export function PasskeySignIn({ run, disabled }: { run(signIn: () => Promise<TUser | null>): Promise<void>; disabled: boolean }) {
  const { signInWith } = useAuth();
  return (
    <Button
      variant="outline"
      size="lg"
      className="w-full"
      disabled={disabled}
      onClick={() => void run(() => signInWith(() => signInWithPasskeyRequest<{ user: TUser }>(), describePasskeyFailure))}
    >
      Sign in with a passkey
    </Button>
  );
}
