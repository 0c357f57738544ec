import { TIMEFRAME_MS, type TCandle, type TCandleTimeframe, type TMarketSource } from '../../../contracts/market.ts';
import { WEEK_OFFSET_MS } from './policy.ts';

/**
 * Deterministic, plausible candles for offline use (MARKET_DATA=simulated, demos, tests).
 *
 * Every candle is a pure function of (source, symbol, timeframe, candle index): nothing is
 * simulated from the beginning of time, so any window costs the same, two workers agree, and a
 * candle does not change with the `limit` or the moment it is asked for. The log price is
 *   level(symbol) + trend(i) + walk(i)
 * where trend is smooth value noise over two scales (up and down regimes lasting tens to hundreds
 * of candles), and walk is a moving sum of the last WALK hashed shocks, each scaled by a slowly
 * varying volatility (quiet and busy stretches). Volume follows volatility and the size of the
 * move, with an occasional spike.
 */

/** Shocks in the moving sum: how far the walk can wander from the trend (about σ·√(WALK/2)). */
const WALK = 24;
const DAY = 86_400_000;

/** The `limit` candles up to and including the one holding `nowMs`, oldest first. */
export function simulatedCandles(source: TMarketSource, symbol: string, timeframe: TCandleTimeframe, limit: number, nowMs: number): TCandle[] {
  const step = TIMEFRAME_MS[timeframe];
  const offset = timeframe === '1w' ? WEEK_OFFSET_MS : 0;
  const count = Math.max(0, Math.floor(limit));
  if (count === 0) return [];
  const last = Math.floor((nowMs - offset) / step);
  const first = last - count + 1;

  const market = marketOf(source, symbol);
  const seed = hashString(`${source}|${symbol.toUpperCase()}|${timeframe}`);
  // Per-candle volatility: the asset's daily volatility scaled to the candle's length.
  const sigma = market.dailyVol * Math.sqrt(step / DAY);
  const trendSlow = Math.min(0.5, sigma * Math.sqrt(240) * 1.2);
  const trendFast = Math.min(0.25, sigma * Math.sqrt(40) * 0.8);
  const logLevel = Math.log(market.price);
  const volumePerCandle = (market.dailyNotional / market.price) * (step / DAY);

  // Shocks from the first candle's previous close's window up to the last candle.
  const from = first - 1 - (WALK - 1);
  const size = last - from + 1;
  const vol = new Float64Array(size);
  const shock = new Float64Array(size);
  for (let k = 0; k < size; k++) {
    const i = from + k;
    vol[k] = Math.exp(0.45 * smooth(seed, i / 30, 11));
    shock[k] = vol[k]! * normal(seed, i, 21);
  }
  const logPrice = (i: number) => {
    let walk = 0;
    for (let j = 0, k = i - from; j < WALK; j++, k--) walk += shock[k]!;
    const trend = trendSlow * smooth(seed, i / 240, 31) + trendFast * smooth(seed, i / 40, 41);
    return logLevel + trend + (sigma / Math.SQRT2) * walk;
  };

  const candles: TCandle[] = new Array(count);
  let prevLog = logPrice(first - 1);
  for (let n = 0; n < count; n++) {
    const i = first + n;
    const k = i - from;
    const currentLog = logPrice(i);
    const open = market.round(Math.exp(prevLog));
    const close = market.round(Math.exp(currentLog));
    const wick = sigma * vol[k]! * (0.3 + 0.6 * Math.abs(normal(seed, i, 51)));
    const high = Math.max(open, close, market.round(Math.max(open, close) * Math.exp(wick * uniform(seed, i, 61))));
    const low = Math.min(open, close, market.round(Math.min(open, close) * Math.exp(-wick * uniform(seed, i, 71))));
    const move = Math.abs(currentLog - prevLog) / (sigma * vol[k]!);
    const spike = uniform(seed, i, 81) < 0.02 ? 3 + 5 * uniform(seed, i, 91) : 1;
    const volume = volumePerCandle * vol[k]! ** 1.5 * Math.exp(0.35 * normal(seed, i, 101)) * (1 + 0.5 * move) * spike;
    candles[n] = { time: i * step + offset, open, high, low, close, volume: market.roundVolume(volume) };
    prevLog = currentLog;
  }
  return candles;
}

// --- markets ------------------------------------------------------------------------------

type Market = { price: number; dailyVol: number; dailyNotional: number; round: (p: number) => number; roundVolume: (v: number) => number };

/** Rough price levels (USD) so simulated charts look like the real thing. */
const CRYPTO_USD: Record<string, number> = {
  BTC: 60_000, ETH: 3_000, SOL: 150, BNB: 550, XRP: 0.55, ADA: 0.45, DOGE: 0.12, DOT: 7, AVAX: 30, LINK: 15, LTC: 80,
  MATIC: 0.7, POL: 0.5, TRX: 0.12, SHIB: 0.00002, PEPE: 0.00001, TON: 5, BCH: 400, XLM: 0.1, UNI: 8, ATOM: 8, NEAR: 5,
  APT: 9, ARB: 1, OP: 2, HT: 0.5, KCS: 10, USDT: 1, USDC: 1, DAI: 1, BUSD: 1, USD: 1, EUR: 1.08,
};
const STABLE = new Set(['USDT', 'USDC', 'DAI', 'BUSD', 'USD']);
const STOCK_USD: Record<string, number> = {
  AAPL: 190, MSFT: 420, GOOGL: 170, GOOG: 170, AMZN: 180, META: 500, TSLA: 200, NVDA: 120, NFLX: 600, AMD: 160, INTC: 35,
  JPM: 200, V: 280, MA: 460, KO: 62, PEP: 170, DIS: 100, BA: 180, WMT: 65, XOM: 115, JNJ: 155, 'BRK.B': 410, SPY: 520, QQQ: 450,
};

function marketOf(source: TMarketSource, symbol: string): Market {
  const upper = symbol.trim().toUpperCase();
  const pair = upper.includes('/') ? upper.split('/') : /^[A-Z0-9]+-USD$/.test(upper) ? [upper.slice(0, -4), 'USD'] : null;
  const crypto = pair !== null || (source !== 'yahoo' && source !== 'simulated');
  if (crypto) {
    const [base = upper, quote = 'USD'] = pair ?? [upper];
    const usd = (code: string) => CRYPTO_USD[code] ?? 10 ** (-1 + 3 * uniform(hashString(code), 0, 1));
    const price = usd(base) / usd(quote);
    const stable = STABLE.has(base) && STABLE.has(quote);
    return { price, dailyVol: stable ? 0.001 : 0.035, dailyNotional: 5e8, round: roundTo(price, 6), roundVolume: (v) => Math.round(v * 1e4) / 1e4 };
  }
  const price = STOCK_USD[upper] ?? 50 * 10 ** uniform(hashString(upper), 0, 2);
  return { price, dailyVol: 0.018, dailyNotional: 2e9, round: roundTo(price, 4), roundVolume: Math.round };
}

/** Rounds to about `digits` significant digits of the market's level (cents at least for stocks ≥ $1). */
function roundTo(level: number, digits: number): (p: number) => number {
  const decimals = Math.min(12, Math.max(2, digits - 1 - Math.floor(Math.log10(level))));
  const factor = 10 ** decimals;
  return (p) => Math.round(p * factor) / factor;
}

// --- hashing ------------------------------------------------------------------------------

/** FNV-1a over the string's UTF-16 units. */
function hashString(text: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) h = Math.imul(h ^ text.charCodeAt(i), 0x01000193);
  return h >>> 0;
}

/** A uniform number in [0, 1) from (seed, index, salt): murmur3's finaliser over the mixed inputs. */
function uniform(seed: number, index: number, salt: number): number {
  let h = (seed ^ Math.imul(salt, 0x9e3779b1)) >>> 0;
  h = Math.imul(h ^ (index >>> 0), 0xcc9e2d51);
  h = Math.imul((h << 15) | (h >>> 17), 0x1b873593);
  h ^= Math.floor(index / 4_294_967_296);
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  h ^= h >>> 16;
  return (h >>> 0) / 4_294_967_296;
}

/** Roughly standard normal (sum of four uniforms): cheap, and its tails stop at ±3.5σ. */
function normal(seed: number, index: number, salt: number): number {
  const sum = uniform(seed, index, salt) + uniform(seed, index, salt + 1) + uniform(seed, index, salt + 2) + uniform(seed, index, salt + 3);
  return (sum - 2) * Math.sqrt(3);
}

/** Smooth value noise in [-1, 1]: hashed values at the integers, eased in between. */
function smooth(seed: number, x: number, salt: number): number {
  const k = Math.floor(x);
  const f = x - k;
  const a = 2 * uniform(seed, k, salt) - 1;
  const b = 2 * uniform(seed, k + 1, salt) - 1;
  return a + (b - a) * f * f * (3 - 2 * f);
}
