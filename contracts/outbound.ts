/**
 * Why a request to a user-supplied URL (a webhook, a chat channel) was refused or failed: one
 * fixed sentence per kind, shown when the URL is saved and when a delivery is recorded
 * (docs/decisions/0040). The details (which address, which range, the socket's error code) go
 * to the server log only, and never the URL's path or query, which often hold a secret.
 */
export const OUTBOUND_FAILURES = {
  'invalid-url': 'This is not a valid web address.',
  'not-https': 'The address must start with https://.',
  credentials: 'The address must not contain a user name or password.',
  'not-found': "The address's host name could not be found.",
  'forbidden-address': 'The address leads to a private, local or reserved network; only public internet addresses are allowed.',
  redirect: 'The receiver answered with a redirect, which is not followed; use the address it redirects to.',
  unreachable: 'The receiver could not be reached.',
  tls: "The receiver's secure connection could not be verified.",
  timeout: 'The receiver did not answer in time.',
} as const satisfies Record<string, string>;
export type TOutboundFailure = keyof typeof OUTBOUND_FAILURES;
