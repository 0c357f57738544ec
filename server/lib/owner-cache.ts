import type { Invalidations, OwnerTopic } from './invalidations.ts';

export type OwnerCache = {
  /**
   * The owner's answer (JSON text) under `variant` (a page size, say): the one being read or
   * kept since the owner's last change, else `load()`, whose result is kept until the next one.
   * Concurrent requests share one read. Without announced changes, always `load()`.
   */
  get(owner: string, variant: string, load: () => Promise<string>): Promise<string>;
  /** What is kept now: owners, and characters of JSON text. */
  stats(): { owners: number; chars: number };
};

type Entry = { text: Promise<string>; chars: number };

/**
 * An owner's answers kept in this process (docs/decisions/0059), for data the database announces
 * every change of (migration 0015): an entry is dropped by the notice of its owner's change, which
 * reaches this process at the writer's commit, before anything else runs here, so no request that
 * starts after a change is answered from before it. An entry is the read's promise, stored before
 * the read is queued: a change committed after it was stored drops it, whenever the read ran.
 * Where changes are not announced (PostgreSQL: see Invalidations.announced), nothing is kept.
 *
 * Bounded: beyond `maxChars` of JSON text or `maxOwners` owners, the owners used least recently go.
 */
export function createOwnerCache({
  invalidations,
  topic,
  maxChars,
  maxOwners = 10_000,
}: {
  invalidations: Invalidations;
  topic: OwnerTopic;
  maxChars: number;
  maxOwners?: number;
}): OwnerCache {
  /** Owner -> variant -> entry; owners in order of use, the least recent first. */
  const owners = new Map<string, Map<string, Entry>>();
  let chars = 0;

  function dropOwner(owner: string): void {
    const entries = owners.get(owner);
    if (!entries) return;
    for (const entry of entries.values()) chars -= entry.chars;
    owners.delete(owner);
  }
  function dropAll(): void {
    owners.clear();
    chars = 0;
  }
  invalidations.on(topic, (owner) => (owner === '*' ? dropAll() : dropOwner(owner)));
  invalidations.onReset(dropAll);

  const isCurrent = (owner: string, variant: string, entry: Entry) => owners.get(owner)?.get(variant) === entry;

  function evict(): void {
    while (chars > maxChars || owners.size > maxOwners) {
      const oldest = owners.keys().next();
      if (oldest.done) return;
      dropOwner(oldest.value);
    }
  }

  function get(owner: string, variant: string, load: () => Promise<string>): Promise<string> {
    if (!invalidations.announced(topic) || !invalidations.reliable()) return load();
    let entries = owners.get(owner);
    if (entries) {
      owners.delete(owner); // used now: the most recent
      owners.set(owner, entries);
      const hit = entries.get(variant);
      if (hit) return hit.text;
    } else {
      owners.set(owner, (entries = new Map()));
    }
    const entry: Entry = { text: load(), chars: 0 };
    entries.set(variant, entry);
    entry.text.then(
      (text) => {
        if (!isCurrent(owner, variant, entry)) return; // the owner changed meanwhile: already gone
        entry.chars = text.length;
        chars += text.length;
        evict();
      },
      () => {
        // A failed read is not kept (its callers have the error).
        if (!isCurrent(owner, variant, entry)) return;
        entries.delete(variant);
        if (entries.size === 0) owners.delete(owner);
      },
    );
    if (owners.size > maxOwners) evict();
    return entry.text;
  }

  return { get, stats: () => ({ owners: owners.size, chars }) };
}
