/** SPEC: a first login from / or /login goes to /dashboard; a login anywhere else stays put.
 * `fromPath` is a page of this site: the current one, or a `next` that passed isSitePath
 * (next-path.ts). */
export const postLoginPath = (fromPath: string): string => (fromPath === '/' || fromPath === '/login' ? '/dashboard' : fromPath);
