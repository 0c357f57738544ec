/**
 * A sliding one-minute window of request times per key (user id): the chat's messages and
 * every user's writes. In memory: with several processes each enforces the limit on its own
 * share of requests, which bounds abuse without a database write per attempt (the chat's daily
 * token budget, in the database, is its hard cap).
 */
export function createRateWindow(limit: number, windowMs = 60_000) {
  const hits = new Map<string, number[]>();

  function prune(times: number[], now: number): number[] {
    let drop = 0;
    while (drop < times.length && times[drop]! <= now - windowMs) drop++;
    return drop === 0 ? times : times.slice(drop);
  }

  /** Counts one request; `ok: false` with the seconds until a slot frees when over the limit. */
  function take(key: string, now: number): { ok: true } | { ok: false; retryAfterSeconds: number } {
    const times = prune(hits.get(key) ?? [], now);
    if (times.length >= limit) {
      hits.set(key, times);
      return { ok: false, retryAfterSeconds: Math.max(1, Math.ceil((times[0]! + windowMs - now) / 1000)) };
    }
    times.push(now);
    hits.set(key, times);
    // Forget idle users now and then so the map does not grow with every user ever seen.
    if (hits.size > 1_000) {
      for (const [k, t] of hits) if (prune(t, now).length === 0) hits.delete(k);
    }
    return { ok: true };
  }

  return { take };
}
