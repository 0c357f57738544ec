import { describe, expect, it } from 'vitest';
import { CANDLE_TIMEFRAMES, TIMEFRAME_MS, type TCandle, type TCandleTimeframe } from '../../../contracts/market.ts';
import type { CandleSource } from './candle-source.ts';
import { WEEK_OFFSET_MS } from './policy.ts';
import { simulatedCandles } from './simulated.ts';

const NOW = Date.parse('2025-06-04T12:34:56Z'); // a Wednesday
const MONDAY = 4 * 86_400_000;

/** Open time of the candle holding `time`: multiples of the timeframe, weeks from Monday 00:00 UTC. */
function candleOpenTime(time: number, timeframe: TCandleTimeframe): number {
  const step = TIMEFRAME_MS[timeframe];
  const offset = timeframe === '1w' ? WEEK_OFFSET_MS : 0;
  return Math.floor((time - offset) / step) * step + offset;
}

/** The simulator as one worker's candle source, with its own clock. */
function createSimulatedSource(options: { now?: () => Date } = {}): Pick<CandleSource, 'id' | 'fetchCandles'> {
  const now = options.now ?? (() => new Date());
  return {
    id: 'simulated',
    fetchCandles: async (request) => simulatedCandles('simulated', request.symbol, request.timeframe, request.limit, now().getTime()),
  };
}

const logReturns = (candles: TCandle[]) => candles.slice(1).map((c, i) => Math.log(c.close / candles[i]!.close));
const sd = (xs: number[]) => {
  const mean = xs.reduce((a, b) => a + b, 0) / xs.length;
  return Math.sqrt(xs.reduce((a, x) => a + (x - mean) ** 2, 0) / xs.length);
};

describe('determinism', () => {
  it('gives the same candle for the same (source, symbol, timeframe, time), whatever the limit or moment', () => {
    const full = simulatedCandles('binance', 'BTC/USDT', '1h', 200, NOW);
    expect(simulatedCandles('binance', 'BTC/USDT', '1h', 200, NOW)).toEqual(full);
    // Fewer candles, asked later within the same hour.
    expect(simulatedCandles('binance', 'BTC/USDT', '1h', 30, NOW + 20 * 60_000)).toEqual(full.slice(-30));
    // Five hours later: the 195 candles both windows share are identical.
    const later = simulatedCandles('binance', 'BTC/USDT', '1h', 200, NOW + 5 * 3_600_000);
    expect(later.slice(0, 195)).toEqual(full.slice(5));
  });

  it('agrees across instances (two workers) and differs per source, symbol and timeframe', async () => {
    const a = await createSimulatedSource({ now: () => new Date(NOW) }).fetchCandles({ symbol: 'ETH/USDT', timeframe: '15m', limit: 50 }, new AbortController().signal);
    const b = await createSimulatedSource({ now: () => new Date(NOW + 1_000) }).fetchCandles({ symbol: 'ETH/USDT', timeframe: '15m', limit: 50 }, new AbortController().signal);
    expect(a).toEqual(b);
    expect(a).toEqual(simulatedCandles('simulated', 'ETH/USDT', '15m', 50, NOW));
    const closes = (c: TCandle[]) => c.map((x) => x.close);
    expect(closes(simulatedCandles('binance', 'ETH/USDT', '15m', 50, NOW))).not.toEqual(closes(a));
    expect(closes(simulatedCandles('binance', 'SOL/USDT', '15m', 50, NOW))).not.toEqual(closes(simulatedCandles('binance', 'ETH/USDT', '15m', 50, NOW)));
    expect(closes(simulatedCandles('binance', 'ETH/USDT', '5m', 50, NOW))).not.toEqual(closes(simulatedCandles('binance', 'ETH/USDT', '15m', 50, NOW)));
  });
});

describe('shape', () => {
  it.each(CANDLE_TIMEFRAMES)('%s: aligned to the grid, ending with the current candle, continuous', (timeframe) => {
    const step = TIMEFRAME_MS[timeframe];
    const candles = simulatedCandles('kraken', 'BTC/USD', timeframe, 120, NOW);
    expect(candles).toHaveLength(120);
    const last = candles.at(-1)!;
    expect(last.time).toBe(candleOpenTime(NOW, timeframe));
    expect(last.time).toBeLessThanOrEqual(NOW);
    expect(last.time + step).toBeGreaterThan(NOW);
    for (const [i, c] of candles.entries()) {
      expect((c.time - (timeframe === '1w' ? MONDAY : 0)) % step).toBe(0);
      if (i > 0) {
        expect(c.time - candles[i - 1]!.time).toBe(step);
        expect(c.open).toBe(candles[i - 1]!.close);
      }
      expect(c.low).toBeLessThanOrEqual(Math.min(c.open, c.close));
      expect(c.high).toBeGreaterThanOrEqual(Math.max(c.open, c.close));
      expect(c.low).toBeGreaterThan(0);
      expect(c.volume).toBeGreaterThan(0);
      expect([c.open, c.high, c.low, c.close, c.volume].every(Number.isFinite)).toBe(true);
    }
  });

  it('weekly candles open on Monday 00:00 UTC', () => {
    const day = new Date(simulatedCandles('yahoo', 'AAPL', '1w', 3, NOW).at(-1)!.time);
    expect(day.toISOString()).toBe('2025-06-02T00:00:00.000Z');
  });

  it('returns nothing for a zero limit', () => {
    expect(simulatedCandles('binance', 'BTC/USDT', '1h', 0, NOW)).toEqual([]);
  });
});

describe('plausibility', () => {
  const level = (source: Parameters<typeof simulatedCandles>[0], symbol: string) => {
    const closes = simulatedCandles(source, symbol, '1d', 500, NOW).map((c) => c.close);
    return { min: Math.min(...closes), max: Math.max(...closes) };
  };

  it('keeps prices near each market’s level', () => {
    const btc = level('binance', 'BTC/USDT');
    expect(btc.min).toBeGreaterThan(60_000 / 3);
    expect(btc.max).toBeLessThan(60_000 * 3);
    const eth = level('coinbase', 'ETH/USD');
    expect(eth.min).toBeGreaterThan(1_000);
    expect(eth.max).toBeLessThan(9_000);
    const ethBtc = level('binance', 'ETH/BTC');
    expect(ethBtc.min).toBeGreaterThan(0.01);
    expect(ethBtc.max).toBeLessThan(0.2);
    const aapl = level('yahoo', 'AAPL');
    expect(aapl.min).toBeGreaterThan(60);
    expect(aapl.max).toBeLessThan(600);
    for (const symbol of ['ZZZZ', 'ACME', 'QWERTY']) {
      const stock = level('yahoo', symbol);
      expect(stock.min).toBeGreaterThan(50 / 3);
      expect(stock.max).toBeLessThan(500 * 3);
    }
  });

  it('prices stocks in cents', () => {
    for (const c of simulatedCandles('yahoo', 'MSFT', '1h', 50, NOW)) {
      for (const p of [c.open, c.high, c.low, c.close]) expect(Math.round(p * 100) / 100).toBe(p);
      expect(Number.isInteger(c.volume)).toBe(true);
    }
  });

  it('has trends, volatility clusters and occasional volume spikes', () => {
    const candles = simulatedCandles('binance', 'BTC/USDT', '15m', 3_000, NOW);
    const returns = logReturns(candles);
    const windows = Array.from({ length: 30 }, (_, w) => returns.slice(w * 100, w * 100 + 100));
    // Volatility clusters: some 100-candle stretches are much busier than others.
    const vols = windows.map(sd);
    expect(Math.max(...vols) / Math.min(...vols)).toBeGreaterThan(1.5);
    // Trends: some stretches move far more than their noise would on its own.
    const drifts = windows.map((w) => Math.abs(w.reduce((a, b) => a + b, 0)) / (sd(w) * Math.sqrt(w.length)));
    expect(Math.max(...drifts)).toBeGreaterThan(2);
    // Volume spikes: a few candles trade several times the usual volume.
    const volumes = candles.map((c) => c.volume).sort((a, b) => a - b);
    const median = volumes[Math.floor(volumes.length / 2)]!;
    const spikes = volumes.filter((v) => v > 4 * median).length;
    expect(spikes).toBeGreaterThan(3);
    expect(spikes).toBeLessThan(candles.length * 0.05);
  });
});

describe('cost', () => {
  it('does not depend on how far from the epoch the window is (no simulation from the start)', () => {
    // Sanity only, no timing assertion: 2,000 windows of 200 candles, near and far in time.
    for (let k = 0; k < 1_000; k++) {
      expect(simulatedCandles('binance', 'BTC/USDT', '1m', 200, NOW + k * 60_000)).toHaveLength(200);
      expect(simulatedCandles('binance', 'BTC/USDT', '1m', 200, NOW * 3 + k * 60_000)).toHaveLength(200);
    }
  });
});
