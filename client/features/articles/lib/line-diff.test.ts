import { describe, expect, it } from 'vitest';
import { diffLines, type DiffLine } from './line-diff.ts';

const show = (lines: DiffLine[]) => lines.map(({ kind, text }) => `${kind === 'same' ? ' ' : kind === 'removed' ? '-' : '+'}${text}`);

describe('diffLines', () => {
  it('keeps what is the same and marks a changed paragraph removed and added', () => {
    expect(show(diffLines('# Title\n\nFirst.\nSecond.\nThird.', '# Title\n\nFirst.\nSecond, rewritten.\nThird.'))).toEqual([
      ' # Title',
      ' ',
      ' First.',
      '-Second.',
      '+Second, rewritten.',
      ' Third.',
    ]);
  });

  it('finds lines kept between changes (a longest common subsequence, not only the common ends)', () => {
    expect(show(diffLines('a\nb\nc\nd\ne', 'a\nx\nc\ny\ne'))).toEqual([' a', '-b', '+x', ' c', '-d', '+y', ' e']);
    expect(show(diffLines('a\nb', 'b\na'))).toEqual(['-a', ' b', '+a']);
  });

  it('shows lines only added or only removed, and equal texts as all kept', () => {
    expect(show(diffLines('a\nc', 'a\nb\nc'))).toEqual([' a', '+b', ' c']);
    expect(show(diffLines('a\nb\nc', 'a\nc'))).toEqual([' a', '-b', ' c']);
    expect(show(diffLines('same', 'same'))).toEqual([' same']);
    expect(show(diffLines('', 'new'))).toEqual(['-', '+new']);
  });

  it('compares the longest articles without a table of their lines’ product: changed middles are removed then added', () => {
    const before = Array.from({ length: 3_000 }, (_, i) => `line ${i}`).join('\n');
    const after = Array.from({ length: 3_000 }, (_, i) => (i === 0 || i === 2_999 ? `line ${i}` : `changed ${i}`)).join('\n');
    const lines = diffLines(before, after);
    expect(lines[0]).toEqual({ kind: 'same', text: 'line 0' });
    expect(lines.at(-1)).toEqual({ kind: 'same', text: 'line 2999' });
    expect(lines.filter((l) => l.kind === 'removed')).toHaveLength(2_998);
    expect(lines.filter((l) => l.kind === 'added')).toHaveLength(2_998);
  });
});
