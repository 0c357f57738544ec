import { SIGN_IN_POPUP } from '../../../contracts/constants.ts';

export const GOOGLE_START_URL = '/api/auth/google/start';
export const POPUP_BLOCKED_MESSAGE = 'Sign-in popup was blocked. Allow popups for this site and try again.';
const FAILED_MESSAGE = 'Failed to sign in with Google';
/** A fixed name, so a second click reuses the open popup instead of stacking another. */
const POPUP_NAME = 'google-sign-in';
/** What the server's result page posts (server/modules/auth/google.routes.ts). */
export const RESULT_TYPE = 'auth:google';
export const RESULT_CHANNEL = 'auth';
const CLOSED_POLL_MS = 500;

type SignInResult = { type: typeof RESULT_TYPE; ok: boolean; message?: string };

/** How the popup ended: it reported success, or it looked closed without reporting. */
export type PopupOutcome = 'reported' | 'closed';

/**
 * Opens Google sign-in in a centred popup. Resolves 'reported' when it reports success, or
 * 'closed' when it looks closed without reporting; rejects with the server's message when it
 * reports a failure, or at once when the browser blocks the popup.
 *
 * 'closed' is not a failure: Google's Cross-Origin-Opener-Policy cuts the opener link, after
 * which `popup.closed` reads true while the user is still signing in. The result then arrives
 * later on the BroadcastChannel, which the AuthProvider listens to for the whole session.
 */
export function openGoogleSignIn(): Promise<PopupOutcome> {
  const popup = window.open(GOOGLE_START_URL, POPUP_NAME, popupFeatures());
  if (!popup) return Promise.reject(new Error(POPUP_BLOCKED_MESSAGE));
  popup.focus();
  return waitForResult(popup);
}

function popupFeatures(): string {
  const { width, height } = SIGN_IN_POPUP;
  // Relative to the current window, so it lands on the same screen (screenX can be negative).
  const left = Math.round(window.screenX + (window.outerWidth - width) / 2);
  const top = Math.round(window.screenY + (window.outerHeight - height) / 2);
  return `popup=yes,width=${width},height=${height},left=${left},top=${top}`;
}

/**
 * Listens on both paths the result page reports by: `postMessage` to its opener and a
 * BroadcastChannel (Google's Cross-Origin-Opener-Policy can cut the opener link on the way).
 */
function waitForResult(popup: Window): Promise<PopupOutcome> {
  return new Promise((resolve, reject) => {
    const channel = typeof BroadcastChannel === 'function' ? new BroadcastChannel(RESULT_CHANNEL) : null;
    let settled = false;

    const settle = (result: SignInResult | null) => {
      if (settled) return;
      settled = true;
      window.removeEventListener('message', onWindowMessage);
      channel?.removeEventListener('message', onChannelMessage);
      channel?.close();
      clearInterval(closedPoll);
      if (result === null) resolve('closed');
      else if (result.ok) resolve('reported');
      else reject(new Error(result.message || FAILED_MESSAGE));
    };

    // Only our own origin may speak for the popup; any other page could post this shape.
    const onWindowMessage = (event: MessageEvent) => {
      if (event.origin === window.location.origin && isSignInResult(event.data)) settle(event.data);
    };
    // A BroadcastChannel is same-origin by construction.
    const onChannelMessage = (event: MessageEvent) => {
      if (isSignInResult(event.data)) settle(event.data);
    };
    const closedPoll = setInterval(() => {
      if (popup.closed) settle(null);
    }, CLOSED_POLL_MS);

    window.addEventListener('message', onWindowMessage);
    channel?.addEventListener('message', onChannelMessage);
  });
}

export function isSignInResult(data: unknown): data is SignInResult {
  if (typeof data !== 'object' || data === null) return false;
  const { type, ok, message } = data as Record<string, unknown>;
  return type === RESULT_TYPE && typeof ok === 'boolean' && (message === undefined || typeof message === 'string');
}
