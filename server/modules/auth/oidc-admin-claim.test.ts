import { describe, expect, it } from 'vitest';
import { roleFromClaims } from './oidc-admin-claim.ts';

const rule = { claim: 'groups', values: ['automation-admins', 'ops'] };

describe('roleFromClaims (OIDC_ADMIN_CLAIM)', () => {
  it('is admin when a string or a list of strings holds one of the values, else guest', () => {
    expect(roleFromClaims({ groups: 'ops' }, rule, 'SSO')).toBe('admin');
    expect(roleFromClaims({ groups: ['staff', 'automation-admins'] }, rule, 'SSO')).toBe('admin');
    expect(roleFromClaims({ groups: ['staff'] }, rule, 'SSO')).toBe('guest');
    expect(roleFromClaims({ groups: [] }, rule, 'SSO')).toBe('guest');
    expect(roleFromClaims({}, rule, 'SSO')).toBe('guest');
    expect(roleFromClaims({ groups: null }, rule, 'SSO')).toBe('guest');
    // Values match exactly: no case folding, no substrings.
    expect(roleFromClaims({ groups: ['Automation-Admins', 'automation-admins-old'] }, rule, 'SSO')).toBe('guest');
  });

  it('reaches into an object by a dotted name (Keycloak realm roles), the whole name first', () => {
    const keycloak = { claim: 'realm_access.roles', values: ['hub-admin'] };
    expect(roleFromClaims({ realm_access: { roles: ['offline_access', 'hub-admin'] } }, keycloak, 'SSO')).toBe('admin');
    expect(roleFromClaims({ realm_access: { roles: ['offline_access'] } }, keycloak, 'SSO')).toBe('guest');
    expect(roleFromClaims({ 'realm_access.roles': 'hub-admin' }, keycloak, 'SSO')).toBe('admin');
    expect(roleFromClaims({ realm_access: 'hub-admin' }, keycloak, 'SSO')).toBe('guest');
  });

  it.each([[42], [true], [{ admins: true }], [['ops', 3]], [[['ops']]]])('refuses a claim of another shape (%j) with a plain reason', (value) => {
    expect(() => roleFromClaims({ groups: value }, rule, 'SSO')).toThrow(
      'SSO sign-in was refused: the groups claim is not a text or a list of texts, so your role cannot be decided',
    );
  });
});
