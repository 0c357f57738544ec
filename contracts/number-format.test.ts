import { describe, expect, it } from 'vitest';
import { formatCompact, formatLimit, formatNumber, formatPercent, formatPrice, pricePrecision } from './number-format.ts';

describe('formatNumber', () => {
  it('keeps two decimals, more significant digits below 1, and a dash for missing values', () => {
    expect(formatNumber(65432.126)).toBe('65,432.13');
    expect(formatNumber(70)).toBe('70');
    expect(formatNumber(-0.000412345)).toBe('-0.0004123');
    expect(formatNumber(0)).toBe('0');
    expect(formatNumber(null)).toBe('—');
    expect(formatNumber(Number.NaN)).toBe('—');
  });
});

describe('formatCompact', () => {
  it('shortens volumes with K, M and B', () => {
    expect(formatCompact(950)).toBe('950');
    expect(formatCompact(12_345)).toBe('12.3K');
    expect(formatCompact(1_234_567)).toBe('1.2M');
    expect(formatCompact(3_400_000_000)).toBe('3.4B');
    expect(formatCompact(undefined)).toBe('—');
  });
});

describe('formatPercent and formatLimit', () => {
  it('shows a measured percentage with two decimals, two significant digits below 1', () => {
    expect(formatPercent(0.5912)).toBe('0.59%');
    expect(formatPercent(0.004321)).toBe('0.0043%');
    expect(formatPercent(312.456)).toBe('312.46%');
    expect(formatPercent(1500)).toBe('1,500%');
  });
  it('shows a configured limit as typed, with separators', () => {
    expect(formatLimit(0.1)).toBe('0.1');
    expect(formatLimit(5)).toBe('5');
    expect(formatLimit(2.25)).toBe('2.25');
    expect(formatLimit(1500)).toBe('1,500');
  });
});

describe('prices in the market precision', () => {
  it('reads the precision from the prices, 2 to 8 decimals', () => {
    expect(pricePrecision([64250.5, 64251])).toBe(2);
    expect(pricePrecision([1.2345, 1.23])).toBe(4);
    expect(pricePrecision([0.00001234])).toBe(8);
    expect(pricePrecision([])).toBe(2);
  });
  it('formats with exactly those decimals and separators', () => {
    expect(formatPrice(64250.5, 2)).toBe('64,250.50');
    expect(formatPrice(1.2, 4)).toBe('1.2000');
    expect(formatPrice(null)).toBe('—');
  });
});
