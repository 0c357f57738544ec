import type { TRole } from '../../../contracts/users.ts';
import { AppError } from '../../lib/errors.ts';

/** OIDC_ADMIN_CLAIM and OIDC_ADMIN_VALUES: admin iff the claim holds one of the values. */
export type AdminClaimRule = { claim: string; values: string[] };

/**
 * The role a provider's claims give under the rule, decided afresh at every sign-in. The claim is
 * a string or a list of strings (Keycloak's, Authentik's and Okta's `groups`, Entra ID's
 * `roles`); a dotted name reaches into an object (Keycloak's `realm_access.roles`) when no claim
 * has the whole name. An absent claim is no group at all (providers leave it out when empty):
 * guest. Any other shape is refused, since guessing could hand out admin or silently take it.
 */
export function roleFromClaims(claims: Record<string, unknown>, rule: AdminClaimRule, displayName: string): TRole {
  const value = claimAt(claims, rule.claim);
  if (value === undefined || value === null) return 'guest';
  const held = typeof value === 'string' ? [value] : Array.isArray(value) && value.every((v) => typeof v === 'string') ? value : null;
  if (held === null) {
    throw new AppError('UNAUTHORIZED', `${displayName} sign-in was refused: the ${rule.claim} claim is not a text or a list of texts, so your role cannot be decided`);
  }
  return held.some((v) => rule.values.includes(v)) ? 'admin' : 'guest';
}

function claimAt(claims: Record<string, unknown>, name: string): unknown {
  if (name in claims) return claims[name];
  let at: unknown = claims;
  for (const part of name.split('.')) {
    if (typeof at !== 'object' || at === null || Array.isArray(at)) return undefined;
    at = (at as Record<string, unknown>)[part];
  }
  return at;
}
