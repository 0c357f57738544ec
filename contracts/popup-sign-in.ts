import { SIGN_IN_RESULT_TYPE, SIGN_IN_ATTEMPT_PATTERN } from './constants.ts';

/**
 * How a sign-in in a popup (Google's, or the operator's OpenID Connect provider's) reports back:
 * the server's result page (server/modules/auth/sign-in-result-page.ts) posts a result to the popup's opener and on a
 * BroadcastChannel; the tab that started the attempt (client/features/auth/lib/sign-in-popup.ts)
 * takes the first copy addressed to it. No zod here: the client's popup module reads it.
 */
export { SIGN_IN_RESULT_CHANNEL, SIGN_IN_RESULT_TYPE, SIGN_IN_ATTEMPT_PATTERN } from './constants.ts';

/** How long an attempt lives: the server's transaction cookie, and the tab listening for it. */
export const SIGN_IN_ATTEMPT_TTL_MS = 10 * 60 * 1000;

export type TPopupSignInResult = {
  type: typeof SIGN_IN_RESULT_TYPE;
  ok: boolean;
  /** The reason, on a failure. */
  message?: string;
  /** The attempt it answers; absent when the server cannot tell (no or another transaction). */
  attempt?: string;
};

export function isPopupSignInResult(data: unknown): data is TPopupSignInResult {
  if (typeof data !== 'object' || data === null) return false;
  const { type, ok, message, attempt } = data as Record<string, unknown>;
  return (
    type === SIGN_IN_RESULT_TYPE &&
    typeof ok === 'boolean' &&
    (message === undefined || typeof message === 'string') &&
    (attempt === undefined || (typeof attempt === 'string' && SIGN_IN_ATTEMPT_PATTERN.test(attempt)))
  );
}
