import { SIGN_IN_POPUP } from '../../../../contracts/constants.ts';
import {
  SIGN_IN_RESULT_CHANNEL,
  isPopupSignInResult,
  SIGN_IN_ATTEMPT_TTL_MS,
  type TPopupSignInResult,
} from '../../../../contracts/popup-sign-in.ts';

/** Where a popup sign-in starts: Google's, or the operator's own OpenID Connect provider's. */
export function signInStartUrl(provider: PopupProvider): string {
  return `/api/auth/${provider}/start`;
}
export type PopupProvider = 'google' | 'oidc';
export const POPUP_BLOCKED_MESSAGE = 'Sign-in popup was blocked. Allow popups for this site and try again.';
export const FAILED_MESSAGE = 'Failed to sign in with Google';
/** A fixed name, so a second click reuses the open popup instead of stacking another. */
const POPUP_NAME = 'google-sign-in';
const CLOSED_POLL_MS = 500;

/** How an attempt ended, as the result page reported it. */
export type SignInResult = { ok: true } | { ok: false; message: string };

/**
 * What the tab hears first. The result; or that the popup looks closed, which is not an outcome:
 * Google's Cross-Origin-Opener-Policy severs the popup from this tab, after which
 * `popup.closed` reads true while the person is still signing in (for minutes, perhaps). Its
 * `result` goes on listening for this attempt, and settles with the result when it comes, or
 * null when none comes before the attempt expires (the person really closed the popup) or a new
 * attempt replaces it.
 */
export type SignInProgress =
  | { kind: 'result'; result: SignInResult }
  | { kind: 'closed'; result: Promise<SignInResult | null> };

export type PopupSignInAttempt = {
  /** Sent to the server, which echoes it on the result page. */
  id: string;
  progress: Promise<SignInProgress>;
};

/** The attempt still listening in this tab: one at a time, a new one replaces it. */
let current: { abandon(): void } | null = null;

/**
 * Opens Google sign-in in a centred popup for a new attempt and listens for its result on both
 * paths the result page reports by: `postMessage` to its opener, and the BroadcastChannel (the
 * only one left when the opener link was cut). Whichever copy comes first settles the attempt;
 * later copies, and results of other attempts, are ignored. Throws at once when the browser
 * blocks the popup.
 */
export function startPopupSignIn(provider: PopupProvider = 'google'): PopupSignInAttempt {
  const id = newAttemptId();
  const popup = window.open(`${signInStartUrl(provider)}?attempt=${id}`, POPUP_NAME, popupFeatures());
  if (!popup) throw new Error(POPUP_BLOCKED_MESSAGE);
  popup.focus();
  current?.abandon();
  const listening = listen(popup, id);
  current = listening;
  return { id, progress: listening.progress };
}

function popupFeatures(): string {
  const { width, height } = SIGN_IN_POPUP;
  // Relative to the current window, so it lands on the same screen (screenX can be negative).
  const left = Math.round(window.screenX + (window.outerWidth - width) / 2);
  const top = Math.round(window.screenY + (window.outerHeight - height) / 2);
  return `popup=yes,width=${width},height=${height},left=${left},top=${top}`;
}

/** 128 random bits, base64url (getRandomValues works outside secure contexts, randomUUID does not). */
function newAttemptId(): string {
  const bytes = crypto.getRandomValues(new Uint8Array(16));
  return btoa(String.fromCharCode(...bytes)).replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '');
}

function listen(popup: Window, id: string): { progress: Promise<SignInProgress>; abandon(): void } {
  const channel = typeof BroadcastChannel === 'function' ? new BroadcastChannel(SIGN_IN_RESULT_CHANNEL) : null;
  let resolveProgress!: (progress: SignInProgress) => void;
  const progress = new Promise<SignInProgress>((resolve) => (resolveProgress = resolve));
  let resolveLate: ((result: SignInResult | null) => void) | null = null;
  let done = false;

  const stop = () => {
    done = true;
    window.removeEventListener('message', onWindowMessage);
    channel?.removeEventListener('message', onChannelMessage);
    channel?.close();
    clearInterval(closedPoll);
    clearTimeout(expiry);
    if (current === listening) current = null;
  };

  /** The first copy of this attempt's result ends everything. */
  const settle = (data: TPopupSignInResult) => {
    if (done || data.attempt !== id) return;
    stop();
    const result: SignInResult = data.ok ? { ok: true } : { ok: false, message: data.message || FAILED_MESSAGE };
    if (resolveLate) resolveLate(result);
    else resolveProgress({ kind: 'result', result });
  };

  /** No result will come: the attempt expired, or a new one replaced it. */
  const giveUp = () => {
    if (done) return;
    stop();
    if (resolveLate) resolveLate(null);
    else resolveProgress({ kind: 'closed', result: Promise.resolve(null) });
  };

  // Only our own origin may speak for the popup; any other page could post this shape.
  const onWindowMessage = (event: MessageEvent) => {
    if (event.origin === window.location.origin && isPopupSignInResult(event.data)) settle(event.data);
  };
  // A BroadcastChannel is same-origin by construction.
  const onChannelMessage = (event: MessageEvent) => {
    if (isPopupSignInResult(event.data)) settle(event.data);
  };
  // Looking closed ends the wait in front of the person, not the listening.
  const closedPoll = setInterval(() => {
    if (done || resolveLate || !popup.closed) return;
    clearInterval(closedPoll);
    resolveProgress({ kind: 'closed', result: new Promise((resolve) => (resolveLate = resolve)) });
  }, CLOSED_POLL_MS);
  // The server's transaction lives as long; no result can come after it.
  const expiry = setTimeout(giveUp, SIGN_IN_ATTEMPT_TTL_MS);

  window.addEventListener('message', onWindowMessage);
  channel?.addEventListener('message', onChannelMessage);
  const listening = { progress, abandon: giveUp };
  return listening;
}
