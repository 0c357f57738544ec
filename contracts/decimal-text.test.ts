import { describe, expect, it } from 'vitest';
import { mulberry32 } from '../tests/support/seeded-random.ts';
import { compactText, fixedText } from './decimal-text.ts';

const intl = (options: Intl.NumberFormatOptions) => new Intl.NumberFormat('en-US', options);

/** Values of every size, and the ones rounding trips on: ties in the shortest form (1.005), runs of 9s, powers of ten. */
function samples(): number[] {
  const rand = mulberry32(20261127);
  const out: number[] = [0, 1, -1, 0.5, 1.005, 1.015, 2.675, 0.045, 999.95, 999.949, 9.995, 99.995, 0.0001, 1e-7, 1.5e-7, 123456789.125, 1e20, 9.99999e20];
  for (let k = -9; k <= 20; k++) {
    const p = 10 ** k;
    out.push(p, 9.5 * p, 9.95 * p, 9.995 * p, 999.95 * p, 999.949 * p, 1.25 * p, 1.35 * p, 0.05 * p);
  }
  for (let n = 0; n < 20_000; n++) {
    const magnitude = 10 ** Math.floor(rand() * 30 - 9);
    const value = rand() * magnitude;
    // Half of them cut to a few decimals, where ties in the shortest form live.
    out.push(n % 2 === 0 ? value : Number(value.toFixed(Math.floor(rand() * 6))));
  }
  return out.flatMap((v) => [v, -v]);
}

describe('decimal text without Intl', () => {
  const values = samples();

  it.each([
    [0, 0],
    [0, 1],
    [0, 2],
    [0, 4],
    [2, 2],
    [4, 4],
    [8, 8],
  ])('fixedText(min %i, max %i) writes what Intl writes', (min, max) => {
    const format = intl({ minimumFractionDigits: min, maximumFractionDigits: max });
    const wrong = values.filter((v) => fixedText(v, min, max) !== null && fixedText(v, min, max) !== format.format(v));
    expect(wrong.slice(0, 5).map((v) => [v, fixedText(v, min, max), format.format(v)])).toEqual([]);
  });

  it('compactText writes what Intl writes in compact notation', () => {
    const format = intl({ notation: 'compact', maximumFractionDigits: 1 });
    const wrong = values.filter((v) => compactText(v) !== null && compactText(v) !== format.format(v));
    expect(wrong.slice(0, 5).map((v) => [v, compactText(v), format.format(v)])).toEqual([]);
  });

  it('leaves to Intl what it does not cover', () => {
    for (const v of [Number.NaN, Infinity, -Infinity, -0, 1e21, -2e22]) {
      expect(fixedText(v, 0, 2)).toBeNull();
      expect(compactText(v)).toBeNull();
    }
    // Everything else in the samples is covered: the fast path is the usual one.
    expect(values.filter((v) => Math.abs(v) < 1e21 && !Object.is(v, -0)).every((v) => fixedText(v, 0, 2) !== null && compactText(v) !== null)).toBe(true);
  });

  it('rounds the shortest decimal form, as Intl does, not the binary value', () => {
    expect(fixedText(1.005, 0, 2)).toBe('1.01');
    expect(fixedText(-0.001, 0, 2)).toBe('-0');
    expect(fixedText(123456789.125, 2, 2)).toBe('123,456,789.13');
    expect(compactText(999_950)).toBe('1M');
    expect(compactText(999.95)).toBe('1K');
    expect(compactText(1e18)).toBe('1,000,000T');
    expect(compactText(999.95e12)).toBe('1000T');
  });
});
