/** SPEC: a first login from / or /login goes to /dashboard; a login anywhere else stays put. */
export function postLoginPath(fromPath: string | null | undefined): string | null {
  if (!fromPath || fromPath === '/' || fromPath === '/login' || !fromPath.startsWith('/') || fromPath.startsWith('//')) {
    return '/dashboard';
  }
  return fromPath;
}
