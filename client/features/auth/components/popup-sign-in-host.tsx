import { useEffect, useRef } from 'react';
import type { TUser } from '../../../../contracts/users.ts';
import { SIGN_IN_RESULT_CHANNEL, isPopupSignInResult } from '../../../../contracts/popup-sign-in.ts';
import { useAuth } from '../../../lib/auth-context.ts';
import { useNavigation } from '../../../lib/navigation.ts';
import { notify } from '../../../lib/notify.ts';
import { FAILED_MESSAGE, startPopupSignIn, type PopupProvider, type SignInResult } from '../lib/sign-in-popup.ts';
import { postLoginPath } from '../lib/post-login-path.ts';

// The tab's part in Google sign-in, beyond what the AuthProvider keeps for every page: loaded on
// the first click of Login, or (the host below) just after the first render when Google is the
// sign-in, so neither the landing page's nor the app's first load carries it.

/** Reads the session a reported success started and signs the tab in with SPEC's toast. */
export type SignInFromSession = () => Promise<TUser | null>;

/** The attempts this tab started: another tab's results are told apart by these. */
const ownAttempts = new Set<string>();

/** What a sign-in that finishes late needs from the screen, while the host is mounted. */
let host: { signedIn(): boolean; redirect(): void } | null = null;

/**
 * One Google sign-in, ending in exactly one outcome: signed in (SPEC's toast), or 'Login failed'
 * with the reason, or nothing when the person closed the popup. Resolves with the user when the
 * result came while the popup was waited for, and null when the popup looked closed first: the
 * attempt's result, if one comes, is then finished here, with SPEC's redirect (from / or /login
 * to /dashboard). Rejects with the reason on a refusal or a blocked popup, for the caller's toast.
 */
export async function signInWithPopupProvider(signIn: SignInFromSession, provider: PopupProvider = 'google'): Promise<TUser | null> {
  const attempt = startPopupSignIn(provider);
  ownAttempts.add(attempt.id);
  const progress = await attempt.progress;
  if (progress.kind === 'result') return finish(progress.result, signIn);
  void progress.result.then(async (result) => {
    if (!result || host?.signedIn()) return; // closed for real, or signed in meanwhile
    try {
      if (await finish(result, signIn)) host?.redirect();
    } catch (err) {
      notify.error('Login failed', err instanceof Error && err.message ? err.message : FAILED_MESSAGE);
    }
  });
  return null;
}

async function finish(result: SignInResult, signIn: SignInFromSession): Promise<TUser> {
  if (!result.ok) throw new Error(result.message);
  const user = await signIn();
  if (!user) throw new Error(FAILED_MESSAGE);
  return user;
}

/**
 * Mounted by the AuthProvider when Google is the sign-in: another tab's successful sign-in signs
 * this tab in too (the session cookie is shared; that tab's failures are its own to show), and a
 * late sign-in gets SPEC's redirect from the page the person is on by then.
 */
export default function PopupSignInHost({ signIn }: { signIn: SignInFromSession }) {
  const { user } = useAuth();
  const { pathname, navigate } = useNavigation();
  const screen = useRef({ user, pathname });
  useEffect(() => {
    screen.current = { user, pathname };
  });
  useEffect(() => {
    const redirect = () => {
      const here = screen.current.pathname;
      const next = postLoginPath(here);
      if (next !== here) navigate(next);
    };
    const mounted = { signedIn: () => Boolean(screen.current.user), redirect };
    host = mounted;
    const channel = typeof BroadcastChannel === 'function' ? new BroadcastChannel(SIGN_IN_RESULT_CHANNEL) : null;
    if (channel) {
      channel.onmessage = async ({ data }: MessageEvent) => {
        if (!isPopupSignInResult(data) || !data.ok || ownAttempts.has(data.attempt ?? '') || mounted.signedIn()) return;
        // A failure was logged by the request helper; this tab did not ask to sign in.
        if (await signIn().catch(() => null)) redirect();
      };
    }
    return () => {
      channel?.close();
      if (host === mounted) host = null;
    };
  }, [navigate, signIn]);
  return null;
}
