import type { SQL } from 'drizzle-orm';

/** What a cache in one process holds that a write in any process can make stale. */
export type InvalidationTopic = 'session' | 'user' | 'articles';

/** Any connection or transaction the write runs on (drizzle's execute). */
export type SqlExecutor = { execute(query: SQL): PromiseLike<unknown> };

/** A sent invalidation: resolves once this process has received it back (then every other
 * listening process has been sent it too), or after a bound when it does not come back. */
export type Sent = { delivered(): Promise<void> };

/**
 * Cache invalidation across processes (docs/decisions/0049): a write NOTIFYs in its own
 * transaction, so the invalidation is delivered at commit or not at all, to every process's
 * handlers (this one's too). With PostgreSQL through the process's one LISTEN connection; with
 * PGlite through the instance itself, in-process.
 */
export type Invalidations = {
  /** Run inside the writing transaction; await `delivered()` after it commits, before answering. */
  notify(tx: SqlExecutor, topic: InvalidationTopic, key: string): Promise<Sent>;
  /** Handlers run when an invalidation is received (after the writer's commit). */
  on(topic: InvalidationTopic, handler: (key: string) => void): void;
  /** False while an invalidation could be missed (PostgreSQL's LISTEN connection is down):
   * caches must then neither serve nor store anything. */
  reliable(): boolean;
  /** Runs when reliability is lost and when it comes back: caches drop everything. */
  onReset(handler: () => void): void;
};

/** For code with nothing to tell and nobody to hear (unit tests of one service): every cache
 * that uses it is bypassed, so nothing can be stale. */
export const NO_CACHE: Invalidations = {
  notify: async () => ({ delivered: async () => {} }),
  on() {},
  reliable: () => false,
  onReset() {},
};
