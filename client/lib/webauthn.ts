import type { AuthenticationResponseJSON, PublicKeyCredentialCreationOptionsJSON, PublicKeyCredentialRequestOptionsJSON, RegistrationResponseJSON } from '@simplewebauthn/browser';
import { apiRequest } from './api-client.ts';

/**
 * The browser's side of passkeys (docs/decisions/0092), shared by the sign-in page, the invite
 * page and Settings. @simplewebauthn/browser is loaded on first use: it has no place in the
 * first load of pages where nobody touches a passkey.
 */
const browserLibrary = () => import('@simplewebauthn/browser');

/** What a person is told when the browser's part fails; the library names the cause in `name`. */
export function passkeyProblem(err: unknown): string {
  const name = err instanceof Error ? ((err as { cause?: unknown }).cause instanceof Error ? (err as { cause: Error }).cause.name : err.name) : '';
  if (name === 'NotAllowedError' || name === 'AbortError') return 'The passkey request was cancelled or timed out.';
  if (name === 'InvalidStateError') return 'This device already holds a passkey for your account.';
  if (name === 'SecurityError') return 'This address cannot use passkeys (they need https, or localhost).';
  return err instanceof Error && err.message ? err.message : 'The passkey request failed.';
}

/** Asks the browser for a new passkey with the server's options. */
export async function createPasskey(optionsJSON: unknown): Promise<RegistrationResponseJSON> {
  const { startRegistration } = await browserLibrary();
  return startRegistration({ optionsJSON: optionsJSON as PublicKeyCredentialCreationOptionsJSON });
}

/** Signs in: a challenge from the server, the browser's choice of this site's passkeys, the answer checked by the server. */
export async function signInWithPasskeyRequest<T>(): Promise<T> {
  const optionsJSON = await apiRequest<PublicKeyCredentialRequestOptionsJSON>('POST', '/api/auth/passkey/options', {});
  const { startAuthentication } = await browserLibrary();
  const credential: AuthenticationResponseJSON = await startAuthentication({ optionsJSON });
  return apiRequest<T>('POST', '/api/auth/passkey/verify', { credential });
}
