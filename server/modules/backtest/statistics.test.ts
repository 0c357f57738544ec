import { describe, expect, it } from 'vitest';
import { mulberry32 } from '../../../tests/support/seeded-random.ts';
import { median } from './statistics.ts';

const sortedMedian = (values: number[]) => {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = sorted.length >> 1;
  return sorted.length % 2 === 1 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2;
};

describe('median', () => {
  it('is the middle value, or the mean of the two middle ones', () => {
    expect(median([3])).toBe(3);
    expect(median([1, -10, 1.0101, 0])).toBe(0.5);
    expect(median([5, 5, 5, 1])).toBe(5);
    expect(median([2, 1, 3])).toBe(2);
  });

  it('agrees with sorting on random lists, with and without repeated values', () => {
    const rand = mulberry32(16);
    for (let n = 0; n < 500; n++) {
      const length = 1 + Math.floor(rand() * 300);
      const repeats = n % 2 === 0;
      const values = Array.from({ length }, () => (repeats ? Math.floor(rand() * 7) - 3 : (rand() - 0.5) * 40));
      expect(median(values)).toBe(sortedMedian(values));
    }
  });

  it('leaves its argument as it was', () => {
    const values = [4, 1, 3, 2];
    median(values);
    expect(values).toEqual([4, 1, 3, 2]);
  });
});
