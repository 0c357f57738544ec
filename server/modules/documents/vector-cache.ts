import type { QuantizedIndex } from './vector-index.ts';

/**
 * Each user's vector index, kept in this process while their documents do not change
 * (docs/decisions/0081): an entry is valid for one documents version and one embedding model, and
 * the least recently used entries leave when the whole passes `maxBytes` (EMBEDDING_CACHE_MB).
 * One user's index larger than the bound is served and not kept.
 */
export type CachedIndex = { version: number; model: string; index: QuantizedIndex };

export type VectorCache = {
  get(userId: string, version: number, model: string): QuantizedIndex | null;
  /** The user's entry for the model whatever its version (to carry its rows into the next one), or null. */
  stale(userId: string, model: string): QuantizedIndex | null;
  set(userId: string, entry: CachedIndex): void;
  drop(userId: string): void;
  clear(): void;
  bytes(): number;
};

export function createVectorCache(maxBytes: number): VectorCache {
  // A Map iterates in insertion order: re-inserting on use keeps the least recent first.
  const entries = new Map<string, CachedIndex>();
  let total = 0;

  function drop(userId: string) {
    const entry = entries.get(userId);
    if (!entry) return;
    total -= entry.index.bytes;
    entries.delete(userId);
  }

  return {
    get(userId, version, model) {
      const entry = entries.get(userId);
      if (!entry) return null;
      if (entry.version !== version || entry.model !== model) return null;
      entries.delete(userId);
      entries.set(userId, entry);
      return entry.index;
    },
    stale(userId, model) {
      const entry = entries.get(userId);
      return entry && entry.model === model ? entry.index : null;
    },
    set(userId, entry) {
      drop(userId);
      if (entry.index.bytes > maxBytes) return;
      for (const [oldest] of entries) {
        if (total + entry.index.bytes <= maxBytes) break;
        drop(oldest);
      }
      entries.set(userId, entry);
      total += entry.index.bytes;
    },
    drop,
    clear() {
      entries.clear();
      total = 0;
    },
    bytes: () => total,
  };
}
