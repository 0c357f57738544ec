import { describe, expect, it } from 'vitest';
import { planCandidates, positiveLexemes } from './retrieval.full-text.ts';

describe("full text's candidate plan", () => {
  it("reads a question's positive lexemes from websearch_to_tsquery's text, once each, negated ones left out", () => {
    expect(positiveLexemes("'refund' & 'window' & 'canada'")).toEqual(["'refund'", "'window'", "'canada'"]);
    expect(positiveLexemes("'refund' & !'canada' & 'refund'")).toEqual(["'refund'"]);
    expect(positiveLexemes("'error' <-> 'code' & 'e42'")).toEqual(["'error'", "'code'", "'e42'"]);
    expect(positiveLexemes("'it''s' & 'back\\\\slash'")).toEqual(["'it''s'", "'back\\\\slash'"]);
    expect(positiveLexemes('')).toEqual([]);
  });

  it('ranks the passages of the rarer words, their counts summing to at most the bound', () => {
    const plan = planCandidates(
      [
        { lexeme: "'common'", count: 501 },
        { lexeme: "'rare'", count: 40 },
        { lexeme: "'middling'", count: 300 },
        { lexeme: "'absent'", count: 0 },
      ],
      500,
      50,
    );
    expect(plan).toEqual({ kind: 'rare', lexemes: ["'rare'", "'middling'"], fill: null, fillCap: 0 });
  });

  it('fills the list from the next word within the bound when the rare words have too few passages', () => {
    const plan = planCandidates(
      [
        { lexeme: "'rare'", count: 3 },
        { lexeme: "'common'", count: 501 },
      ],
      500,
      50,
    );
    expect(plan).toEqual({ kind: 'rare', lexemes: ["'rare'"], fill: "'common'", fillCap: 497 });
  });

  it('a question whose words are all common: the passages holding them all, then the rarest word, each capped', () => {
    const plan = planCandidates(
      [
        { lexeme: "'b'", count: 501 },
        { lexeme: "'a'", count: 501 },
      ],
      500,
      50,
    );
    expect(plan).toEqual({ kind: 'common', all: ["'a'", "'b'"], rarest: "'a'", cap: 500 });
  });

  it('no word of the question in any passage: nothing to rank', () => {
    expect(planCandidates([{ lexeme: "'nowhere'", count: 0 }], 500, 50)).toEqual({ kind: 'none' });
    expect(planCandidates([], 500, 50)).toEqual({ kind: 'none' });
  });
});
