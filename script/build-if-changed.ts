// Builds the client (npm run build) unless the build in dist/ was made from exactly the files it
// depends on now. script/server runs it on every start, so an unchanged checkout starts at once.
//
//   node script/build-if-changed.ts
//
// The inputs are hashed (path and content of every file, see BUILD_INPUTS); the hash of the
// last successful build is kept in dist/.build-inputs. It rebuilds when that file is missing or
// differs, or when an output the server needs is missing. The stamp is removed before building,
// so a build that fails (or is stopped) never looks current.
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * What `npm run build` reads: the client and the contracts it imports, the build's own
 * configuration and scripts, and the dependencies (the lock file, which pins PGlite). The server
 * is not among them, but for the module that writes PGlite's template and the migrations that
 * template holds: vite.config.ts imports none of it (script/dev-client.ts adds the dev page's
 * config).
 */
export const BUILD_INPUTS = {
  // The migrations: the new data directory's starting point holds them (decision 0105).
  dirs: ['client', 'contracts', 'server/db/migrations'],
  files: [
    'package.json',
    'package-lock.json',
    'vite.config.ts',
    'tsconfig.json',
    'tsconfig.base.json',
    'tsconfig.client.json',
    'script/prerender.ts',
    // The new data directory's starting point (dist/pglite): its script and what it calls.
    'script/pglite-template.ts',
    'server/db/pglite-template.ts',
    'server/lib/v8-memory.ts',
    // The rule itself: a change to what counts as an input rebuilds once.
    'script/build-if-changed.ts',
  ],
} as const;

/** What the server needs from a build: the app's page, the prerendered `/`, the public pages'
 * renderer, and a new PGlite data directory's starting point. */
export const BUILD_OUTPUTS = ['dist/client/index.html', 'dist/client/landing.html', 'dist/prerender/prerender.js', 'dist/pglite/template.tar.gz', 'dist/pglite/template.version'] as const;

export const STAMP = 'dist/.build-inputs';

/** Every file under `dir` (relative to `root`), sorted; node_modules and dist are never inputs. */
function filesUnder(root: string, dir: string): string[] {
  const full = path.join(root, dir);
  if (!existsSync(full)) return [];
  return readdirSync(full, { withFileTypes: true })
    .filter((entry) => entry.name !== 'node_modules' && entry.name !== 'dist')
    .flatMap((entry) => {
      const relative = path.posix.join(dir, entry.name);
      if (entry.isDirectory()) return filesUnder(root, relative);
      return entry.isFile() || (entry.isSymbolicLink() && statSync(path.join(root, relative)).isFile()) ? [relative] : [];
    })
    .sort();
}

/** SHA-256 over the path and content of every input file (a missing listed file counts too). */
export function inputsHash(root: string): string {
  const hash = createHash('sha256');
  const files = [...BUILD_INPUTS.dirs.flatMap((dir) => filesUnder(root, dir)), ...BUILD_INPUTS.files].sort();
  for (const file of files) {
    const full = path.join(root, file);
    hash.update(`${file}\0`);
    hash.update(existsSync(full) ? readFileSync(full) : '(missing)');
    hash.update('\0');
  }
  return hash.digest('hex');
}

/** Why a build is needed, or null when dist/ was built from exactly the current inputs. */
export function staleReason(root: string, hash = inputsHash(root)): string | null {
  const missing = BUILD_OUTPUTS.find((output) => !existsSync(path.join(root, output)));
  if (missing) return `${missing} is missing`;
  const stamp = path.join(root, STAMP);
  if (!existsSync(stamp)) return 'no record of what the last build was made from';
  if (readFileSync(stamp, 'utf8').trim() !== hash) return 'its inputs changed since the last build';
  return null;
}

/**
 * Builds with `build` (true on success) when dist/ is stale; records the inputs it built from.
 * The hash is taken before building: a file edited during the build rebuilds next time.
 */
export function buildIfChanged(root: string, build: () => boolean, log: (line: string) => void = console.log): 'built' | 'current' | 'failed' {
  const hash = inputsHash(root);
  const reason = staleReason(root, hash);
  if (reason === null) {
    log('build: dist/ is up to date (no input changed since the last build)');
    return 'current';
  }
  log(`build: building the client (${reason})`);
  rmSync(path.join(root, STAMP), { force: true });
  if (!build()) return 'failed';
  mkdirSync(path.dirname(path.join(root, STAMP)), { recursive: true });
  writeFileSync(path.join(root, STAMP), `${hash}\n`);
  return 'built';
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
  const npmBuild = () => spawnSync('npm', ['run', 'build', '--silent'], { cwd: root, stdio: 'inherit' }).status === 0;
  if (buildIfChanged(root, npmBuild) === 'failed') process.exit(1);
}
