import { PerformanceObserver } from 'node:perf_hooks';
import { getHeapSpaceStatistics, setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';

/**
 * V8 flags for a process that runs the embedded database (PGlite), set by `server/index.ts`
 * before PGlite compiles; none with PostgreSQL. Measured in docs/decisions/0054.
 *
 * - PGlite's Postgres is a 9 MB WebAssembly module. V8 compiles it with its baseline compiler
 *   (Liftoff), then recompiles the functions that run often with its optimising one (TurboFan)
 *   in the background: for Postgres's large functions that took several hundred MB while the
 *   server started (peak ~1.0 GB with a new data directory from the template) and ~60 MB
 *   resident afterwards. Liftoff alone: a peak of ~440 MB, for a throughput on the mixed load
 *   within this machine's noise of the tiered one. The flags' implications are not applied at
 *   run time, so each is named.
 * - Under load V8 let the old generation fill with garbage to ~4x what survives (~55 MB) before
 *   collecting it: requests that wait for the one PGlite connection live long enough to be
 *   promoted out of the young generation. Growing it by 100% at most (read whenever V8 sets
 *   its next limit) kept the server under 400 MB after a minute of the mixed load, for the same
 *   throughput at the same machine load; 50% cost a third of it.
 */
export function v8FlagsFor(database: 'pglite' | 'postgres'): readonly string[] {
  if (database !== 'pglite') return [];
  return ['--liftoff-only', '--no-wasm-tier-up', '--no-wasm-dynamic-tiering', '--heap-growing-percent=100'];
}

export function setV8Flags(flags: readonly string[]): void {
  for (const flag of flags) setFlagsFromString(flag);
}

/** The gc extension's options (V8 src/extensions/gc-extension.cc). */
type GcOptions = { type: 'major'; execution: 'sync'; flavor: 'last-resort' };

/**
 * A full collection that also shrinks the heap, as V8 does when memory runs short (the
 * 'last-resort' flavour): a plain full collection leaves the young generation at its size.
 * `server/index.ts` runs it once after a PGlite start, whose migrations and unpacking grow the
 * heap (~140 MB returned to the system, docs/decisions/0054).
 */
export function collectGarbageAndShrink(): void {
  setFlagsFromString('--expose-gc');
  const gc = runInNewContext('gc') as (options: GcOptions) => void;
  gc({ type: 'major', execution: 'sync', flavor: 'last-resort' });
}

/** The young generation's cap on PGlite: two semi-spaces of 16 MB. */
export const YOUNG_GENERATION_CAP_BYTES = 32 * 1024 * 1024;

const youngGenerationBytes = () => getHeapSpaceStatistics().find((space) => space.space_name === 'new_space')?.space_size ?? 0;

/**
 * Stops V8's young generation growing past `capBytes`; returns the function that lets it grow
 * again. V8 doubles it each time it fills, up to 2 x 64 MB, which a loaded server reaches in
 * seconds and keeps (~110 MB resident for a few MB live: the mixed load's memory, decision
 * 0054). `--max-semi-space-size` would cap it but is read only when the process starts, and
 * the server is started as `node server/index.ts` in many places (PostgreSQL needs no cap);
 * `--semi-space-growth-factor` is read whenever V8 grows it, so after each collection the
 * growth is turned off at the cap and on again below it (after a collection that shrank it).
 * Not growing it at all (1 MB) cost ~20% of the mixed load's throughput; 16 MB costs none
 * measurable. It overshoots when several collections run in one turn (start-up's long turns:
 * the collection after start undoes it); a server's turns are short.
 */
export function capYoungGeneration(capBytes = YOUNG_GENERATION_CAP_BYTES): () => void {
  let capped = false;
  const observer = new PerformanceObserver(() => {
    const atCap = youngGenerationBytes() >= capBytes;
    if (atCap === capped) return;
    capped = atCap;
    setFlagsFromString(`--semi-space-growth-factor=${atCap ? 1 : 2}`);
  });
  observer.observe({ entryTypes: ['gc'] });
  return () => {
    observer.disconnect();
    if (capped) setFlagsFromString('--semi-space-growth-factor=2');
  };
}

