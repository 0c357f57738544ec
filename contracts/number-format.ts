/**
 * Numbers formatted for people, the same on every screen, notification and email: thousands
 * separators, compact volumes ('1.2M'), prices in the market's precision. Always en-US, so a
 * server-written alert and the page that shows it agree whatever the reader's locale.
 * Zod-free: public pages may import it. The common cases are written without Intl
 * (decimal-text.ts, the same text several times faster); Intl writes the rest.
 */
import { compactText, fixedText } from './decimal-text.ts';

const cache = new Map<string, Intl.NumberFormat>();
function formatter(key: string, options: Intl.NumberFormatOptions): Intl.NumberFormat {
  let f = cache.get(key);
  if (!f) {
    f = new Intl.NumberFormat('en-US', options);
    cache.set(key, f);
  }
  return f;
}

const NONE = '—';

/**
 * A number for reading: thousands separators, at most `maxFractionDigits` decimals (2 unless
 * given); a value below 1 keeps 4 significant digits instead (a cheap coin's MACD is 0.0004,
 * which two decimals would show as 0). '—' when there is no number.
 */
export function formatNumber(value: number | null | undefined, maxFractionDigits = 2): string {
  if (value === null || value === undefined || !Number.isFinite(value)) return NONE;
  if (value !== 0 && Math.abs(value) < 1) return formatter('sig4', { maximumSignificantDigits: 4 }).format(value);
  return fixedText(value, 0, maxFractionDigits) ?? formatter(`frac${maxFractionDigits}`, { maximumFractionDigits: maxFractionDigits }).format(value);
}

/** A volume or count in few characters: 950, 12.3K, 1.2M, 3.4B. */
export function formatCompact(value: number | null | undefined): string {
  if (value === null || value === undefined || !Number.isFinite(value)) return NONE;
  return compactText(value) ?? formatter('compact', { notation: 'compact', maximumFractionDigits: 1 }).format(value);
}

/** A percentage as a person reads it: '0.59%', '0.004%', '312.46%', '1,500%'. */
export function formatPercent(value: number | null | undefined): string {
  if (value === null || value === undefined || !Number.isFinite(value)) return NONE;
  const small = value !== 0 && Math.abs(value) < 1;
  if (small) return `${formatter('sig2', { maximumSignificantDigits: 2 }).format(value)}%`;
  return `${fixedText(value, 0, 2) ?? formatter('frac2', { maximumFractionDigits: 2 }).format(value)}%`;
}

/**
 * A limit a user typed (a threshold's value) exactly as typed, up to 4 decimals: 0.1 stays 0.1,
 * 1500 reads 1,500. Data migration 0005 writes the same text with to_char.
 */
export const formatLimit = (value: number): string => fixedText(value, 0, 4) ?? formatter('limit', { maximumFractionDigits: 4 }).format(value);

/** Most decimals a price is shown with (tiny coins quote 8). */
const MAX_PRICE_DECIMALS = 8;

/**
 * The market's precision, read from its own prices: the most decimals any of them has (at
 * least 2, at most 8). Exchanges quote on a tick grid, so the series shows the grid.
 */
export function pricePrecision(prices: Iterable<number>): number {
  let decimals = 2;
  for (const price of prices) {
    if (!Number.isFinite(price)) continue;
    // toFixed avoids exponent notation; trailing zeros are not precision.
    const text = price.toFixed(MAX_PRICE_DECIMALS).replace(/0+$/, '');
    const dot = text.indexOf('.');
    decimals = Math.max(decimals, dot < 0 ? 0 : text.length - dot - 1);
    // No price can raise it further (prices read as floats, as Yahoo's are, get here at once).
    if (decimals >= MAX_PRICE_DECIMALS) break;
  }
  return Math.min(decimals, MAX_PRICE_DECIMALS);
}

/** A price with thousands separators and exactly the market's decimals: 64,250.50. */
export function formatPrice(value: number | null | undefined, decimals = 2): string {
  if (value === null || value === undefined || !Number.isFinite(value)) return NONE;
  return fixedText(value, decimals, decimals) ?? formatter(`price${decimals}`, { minimumFractionDigits: decimals, maximumFractionDigits: decimals }).format(value);
}
