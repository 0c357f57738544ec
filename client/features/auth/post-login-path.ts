/** Backslashes (browsers read `\` as `/` in URLs) and control characters (the URL parser drops
 * tabs and newlines, so `/\t/host` becomes `//host`). */
// eslint-disable-next-line no-control-regex -- control characters are what this looks for
const UNSAFE_CHARACTERS = /[\u0000-\u001f\u007f\\]/;

/**
 * Whether `path` is a path on this site, safe to navigate to: it starts with a single `/` and
 * neither it nor its percent-decoded form holds a backslash, a control character or a leading
 * `//`, any of which a browser can turn into another host (`/\evil.example`, `//evil`,
 * `https://evil`, `javascript:`). The one check for every page taken from a URL (`?next=`).
 */
export function isSitePath(path: string): boolean {
  let decoded: string;
  try {
    decoded = decodeURIComponent(path);
  } catch {
    return false; // malformed escapes: not a path we produced
  }
  return [path, decoded].every((form) => form.startsWith('/') && !form.startsWith('//') && !UNSAFE_CHARACTERS.test(form));
}

/** SPEC: a first login from / or /login goes to /dashboard; a login anywhere else stays put. A
 * page that is not a path on this site (see isSitePath) goes to /dashboard too. */
export function postLoginPath(fromPath: string | null | undefined): string {
  if (!fromPath || fromPath === '/' || fromPath === '/login' || !isSitePath(fromPath)) return '/dashboard';
  return fromPath;
}
