import { describe, expect, it } from 'vitest';
import { isSitePath, pathAfterLogin } from './next-path.ts';

describe('pathAfterLogin (?next= on /login)', () => {
  it('goes to /dashboard for / and /login or without a next (SPEC)', () => {
    for (const next of ['/', '/login', '', null]) expect(pathAfterLogin(next)).toBe('/dashboard');
  });

  it('keeps any other page of this site, with its query and fragment', () => {
    for (const next of ['/insights?page=2', '/some/other-page', '/insights/100%25-growth', '/chat-console#history', '/dashboard']) {
      expect(isSitePath(next)).toBe(true);
      expect(pathAfterLogin(next)).toBe(next);
    }
  });

  it.each([
    ['a backslash after the slash', '/\\evil.example'],
    ['two backslashes', '\\\\evil.example'],
    ['a backslash later on', '/a\\b'],
    ['an encoded backslash', '/%5Cevil'],
    ['an encoded backslash, lower case', '/%5cevil.example'],
    ['a tab the URL parser drops', '/\t/evil.example'],
    ['a newline', '/\n/evil.example'],
    ['a carriage return', '/x\rx'],
    ['a NUL', '/\u0000evil'],
    ['DEL', '/\u007fevil'],
    ['an encoded tab', '/%09/evil.example'],
    ['protocol-relative', '//evil'],
    ['three slashes', '///evil'],
    ['an encoded second slash', '/%2Fevil.example'],
    ['an absolute URL', 'https://evil'],
    ['javascript:', 'javascript:alert(1)'],
    ['a relative path', 'dashboard'],
    ['malformed escapes', '/%E0%A4%A'],
  ])('refuses %s and goes to /dashboard', (_name, next) => {
    expect(isSitePath(next)).toBe(false);
    expect(pathAfterLogin(next)).toBe('/dashboard');
  });
});
