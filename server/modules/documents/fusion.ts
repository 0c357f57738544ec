/**
 * Reciprocal rank fusion (docs/decisions/0081): each list gives an item 1 / (k + its rank),
 * rank counted from 1; an item in both lists adds both. k = 60, as Cormack, Clarke and Büttcher
 * proposed it: no list's scores need to be comparable with the other's, only their orders.
 */
export const RRF_K = 60;

export function fuseByRank(lists: readonly (readonly string[])[], limit: number, k = RRF_K): { id: string; score: number }[] {
  const scores = new Map<string, number>();
  // The first list an item was seen in, then its rank there: ties fall to the earlier-seen.
  const firstSeen = new Map<string, number>();
  for (const list of lists) {
    for (const [rank, id] of list.entries()) {
      scores.set(id, (scores.get(id) ?? 0) + 1 / (k + rank + 1));
      if (!firstSeen.has(id)) firstSeen.set(id, firstSeen.size);
    }
  }
  return [...scores.entries()]
    .sort((a, b) => b[1] - a[1] || firstSeen.get(a[0])! - firstSeen.get(b[0])!)
    .slice(0, limit)
    .map(([id, score]) => ({ id, score }));
}
