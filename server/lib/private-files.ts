import { chmodSync, lstatSync, mkdirSync, readdirSync } from 'node:fs';
import path from 'node:path';

/** What a process that writes only private files sets first: new files 0600, directories 0700. */
export const PRIVATE_UMASK = 0o077;

/**
 * Makes `dir` (created if missing) and everything under it readable by this user only:
 * group and other bits are removed, so directories end 0700 and data files 0600. DATA_DIR
 * holds the embedded database (its write-ahead log has users' emails) and the session secret.
 * PGlite unpacks a fresh cluster with explicit 0666 modes, which no umask prevents, and a
 * directory made by an older version is 0755: both are tightened here. Symbolic links are
 * neither followed nor changed. Walks without recursion.
 */
export function makePrivate(dir: string): void {
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  const pending = [dir];
  while (pending.length > 0) {
    const current = pending.pop()!;
    const stat = lstatSync(current);
    if (stat.isSymbolicLink()) continue;
    if ((stat.mode & 0o077) !== 0) chmodSync(current, stat.mode & 0o700);
    if (stat.isDirectory()) for (const name of readdirSync(current)) pending.push(path.join(current, name));
  }
}
