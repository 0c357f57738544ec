import { postLoginPath } from './post-login-path.ts';

/** One `/`, then nothing a browser could read as another host: no second `/` or `\` right
 * after it (`//evil`, `/\evil`), no backslash anywhere (read as `/`), no control character (the
 * URL parser drops tabs and newlines, so `/\t/evil` becomes `//evil`). */
// eslint-disable-next-line no-control-regex -- control characters are what this refuses
const SITE_PATH = /^\/(?![/\\])[^\u0000-\u001f\u007f\\]*$/;

/**
 * Whether `path` is a path on this site, safe to navigate to: its percent-decoded form passes
 * SITE_PATH (decoding keeps every raw character, and also exposes `/%5Cevil` and `/%2Fevil`),
 * and it decodes at all. The one check for a page taken from a URL; `https://evil` and
 * `javascript:` fail the leading `/`.
 */
export function isSitePath(path: string): boolean {
  try {
    return SITE_PATH.test(decodeURIComponent(path));
  } catch {
    return false; // malformed escapes: not a path we produced
  }
}

/** Where `/login?next=` leads after signing in: `next` when it is a path on this site (with
 * SPEC's rule for / and /login), else /dashboard. */
export const pathAfterLogin = (next: string | null): string => (next && isSitePath(next) ? postLoginPath(next) : '/dashboard');
