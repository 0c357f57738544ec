import { describe, expect, it } from 'vitest';
import { chunkSections, type Section } from './chunk.ts';

const section = (text: string, where: Partial<Section> = {}): Section => ({ page: null, sheet: null, heading: null, text, ...where });
const sentence = (n: number) => `Sentence number ${n} says something short about the report.`;

describe('chunkSections (docs/decisions/0081)', () => {
  it('keeps short paragraphs of one page together, and never joins two pages', () => {
    const passages = chunkSections([section('First paragraph.\n\nSecond paragraph.', { page: 1 }), section('Third, on the next page.', { page: 2 })], { size: 200, overlap: 50 });
    expect(passages).toEqual([
      { ord: 0, page: 1, sheet: null, heading: null, text: 'First paragraph.\n\nSecond paragraph.' },
      { ord: 1, page: 2, sheet: null, heading: null, text: 'Third, on the next page.' },
    ]);
  });

  it('splits a long page at sentence ends, each passage keeping its page and heading, and opens each with the end of the one before', () => {
    const text = Array.from({ length: 12 }, (_, i) => sentence(i + 1)).join(' ');
    const passages = chunkSections([section(text, { page: 7, heading: 'Results' })], { size: 200, overlap: 80 });
    expect(passages.length).toBeGreaterThan(3);
    for (const p of passages) {
      expect(p).toMatchObject({ page: 7, heading: 'Results' });
      // Whole sentences only: each passage starts at a sentence's start and ends at its end.
      expect(p.text).toMatch(/^Sentence number \d+ .*report\.$/);
      expect(p.text.length).toBeLessThanOrEqual(200 + 80 + 1);
    }
    for (let i = 1; i < passages.length; i++) {
      const previousLast = passages[i - 1]!.text.split(/(?<=\.)\s/).at(-1)!;
      expect(passages[i]!.text.startsWith(previousLast), `passage ${i} opens with the end of passage ${i - 1}`).toBe(true);
    }
    // Every sentence is in some passage.
    for (let n = 1; n <= 12; n++) expect(passages.some((p) => p.text.includes(sentence(n)))).toBe(true);
    expect(passages.map((p) => p.ord)).toEqual(passages.map((_, i) => i));
  });

  it('cuts a sentence longer than a passage at word boundaries', () => {
    const words = Array.from({ length: 100 }, (_, i) => `word${i}`).join(' ');
    const passages = chunkSections([section(words)], { size: 100, overlap: 0 });
    expect(passages.every((p) => p.text.length <= 100)).toBe(true);
    expect(passages.map((p) => p.text).join(' ')).toBe(words);
  });

  it('makes no passage of a section without text', () => {
    expect(chunkSections([section('  \n\n  ', { page: 1 })])).toEqual([]);
  });
});
