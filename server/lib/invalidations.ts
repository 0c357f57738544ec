import type { SQL } from 'drizzle-orm';

/**
 * What a cache in one process holds that a write in any process can make stale. `session`,
 * `user` and `articles` are sent by the writers (notify); `agents` and `notifications` (an
 * owner's lists, keyed by the owner's id, '*' for every owner) are announced by the database
 * itself where it is set to (migration 0015, docs/decisions/0059).
 */
export type InvalidationTopic = 'session' | 'user' | 'articles' | OwnerTopic;
/** An owner's data whose every change the database announces (migration 0015). */
export type OwnerTopic = 'agents' | 'notifications';

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
  /**
   * Whether every change to this owner data reaches this process's handlers at the writer's
   * commit, before any other work here runs: true on PGlite (one process, the database's own
   * notices, delivered in-process), false on PostgreSQL, where no writer waits for other
   * processes to hear a change the database announced, so no process may cache that data.
   */
  announced(topic: OwnerTopic): boolean;
};

/** For code with nothing to tell and nobody to hear (unit tests of one service): every cache
 * that uses it is bypassed, so nothing can be stale. */
export const NO_CACHE: Invalidations = {
  notify: async () => ({ delivered: async () => {} }),
  on() {},
  reliable: () => false,
  onReset() {},
  announced: () => false,
};
