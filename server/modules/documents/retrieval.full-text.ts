/**
 * Full text's bound (docs/decisions/0087): a question's words are found by the GIN index in
 * microseconds, but ranking a passage reads its whole tsvector (detoasted) and scores it, about
 * 10 µs a passage on PostgreSQL and more on PGlite; a question of three common words matched
 * 5,000 of 50,000 passages and took 100 ms. So only a bounded candidate set is ranked: the
 * passages of the question's rarer words, whose count in the scope is probed first (each probe
 * itself bounded), as a reader weighs words (a rare word says more about a passage than a common
 * one).
 */

/** At most this many passages are ranked per question (twice this when every word is common). */
export const FULL_TEXT_BOUND = 500;

/**
 * A question's positive lexemes as `tsquery` literals (quoted as PostgreSQL prints them, so
 * they cast back unchanged), from `websearch_to_tsquery(...)::text`: `'refund' & !'canada'` gives
 * `'refund'`. Negated lexemes are left out (they find no passage); each appears once.
 */
export function positiveLexemes(tsquery: string): string[] {
  const found = new Set<string>();
  // A literal is '...' with '' and \ escapes inside; a ! right before it negates it.
  for (const match of tsquery.matchAll(/(!\s*)?('(?:[^'\\]|''|\\.)*')/g)) {
    if (!match[1]) found.add(match[2]!);
  }
  return [...found];
}

/** How the candidates are chosen, from each lexeme's passage count in the scope (capped at `bound` + 1). */
export type CandidatePlan =
  /** Passages of any of `lexemes` (their counts sum to at most the bound), and when they are fewer than wanted, up to `fillCap` of `fill`'s. */
  | { kind: 'rare'; lexemes: string[]; fill: string | null; fillCap: number }
  /** Every word is common: passages holding them all first (capped), then the rarest word's (capped). */
  | { kind: 'common'; all: string[]; rarest: string; cap: number }
  | { kind: 'none' };

export function planCandidates(counts: readonly { lexeme: string; count: number }[], bound: number, wanted: number): CandidatePlan {
  const present = counts.filter((c) => c.count > 0).sort((a, b) => a.count - b.count || a.lexeme.localeCompare(b.lexeme));
  if (present.length === 0) return { kind: 'none' };
  const lexemes: string[] = [];
  let total = 0;
  for (const { lexeme, count } of present) {
    if (total + count > bound) break;
    lexemes.push(lexeme);
    total += count;
  }
  if (lexemes.length === 0) return { kind: 'common', all: present.map((c) => c.lexeme), rarest: present[0]!.lexeme, cap: bound };
  const next = present[lexemes.length];
  // Too few to fill the list: the next rarer word's passages make up the rest, within the bound.
  const fill = next && total < wanted ? next.lexeme : null;
  return { kind: 'rare', lexemes, fill, fillCap: fill ? bound - total : 0 };
}
