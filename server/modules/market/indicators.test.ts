import { describe, expect, it } from 'vitest';
import { atr, bollinger, ema, macd, rsi, sma, stochastic, vwap } from './indicators.ts';
import { mulberry32 } from '../../../tests/support/seeded-random.ts';

// Expected values come from arithmetic written out here, from naive reference implementations
// of the textbook definitions below (each window recomputed from scratch), and from the
// published StockCharts RSI example; never from the code under test.

const NaN_ = Number.NaN;
const range = (from: number, to: number) => Array.from({ length: to - from + 1 }, (_, i) => from + i);

/**
 * Compares index by index: NaN exactly where `expected` has NaN, elsewhere within 1e-9 of the
 * larger of |expected| and `scale` (the series' own magnitude: a MACD near 0 on prices near
 * 50,000 carries the rounding of 50,000, and RSI/%K live on a 0..100 scale, so scale 1).
 */
function expectSeries(actual: Float64Array, expected: ArrayLike<number>, scale = 1): void {
  expect(actual).toBeInstanceOf(Float64Array);
  expect(actual.length).toBe(expected.length);
  for (let i = 0; i < expected.length; i++) {
    const want = expected[i]!;
    const got = actual[i]!;
    if (Number.isNaN(want)) {
      if (!Number.isNaN(got)) expect.fail(`index ${i}: expected NaN, got ${got}`);
      continue;
    }
    const tolerance = 1e-9 * Math.max(Math.abs(want), scale);
    if (!(Math.abs(got - want) <= tolerance)) expect.fail(`index ${i}: expected ${want}, got ${got} (tolerance ${tolerance})`);
  }
}

// --- naive references, straight from the definitions ------------------------------------------

function mean(xs: ArrayLike<number>, from: number, to: number): number {
  let s = 0;
  for (let j = from; j <= to; j++) s += xs[j]!;
  return s / (to - from + 1);
}

function refSma(xs: ArrayLike<number>, p: number): number[] {
  return Array.from({ length: xs.length }, (_, i) => {
    if (i < p - 1) return NaN_;
    for (let j = i - p + 1; j <= i; j++) if (Number.isNaN(xs[j]!)) return NaN_;
    return mean(xs, i - p + 1, i);
  });
}

/** EMA seeded with the mean of the `p` values ending at `seedEnd`, then the literal recursion
 * ema = k*x + (1-k)*ema (a different operation order from TA-Lib's on purpose). */
function refEmaFrom(xs: ArrayLike<number>, p: number, seedEnd: number): number[] {
  const out: number[] = Array.from({ length: xs.length }, () => NaN_);
  if (seedEnd >= xs.length) return out;
  const k = 2 / (p + 1);
  out[seedEnd] = mean(xs, seedEnd - p + 1, seedEnd);
  for (let i = seedEnd + 1; i < xs.length; i++) out[i] = k * xs[i]! + (1 - k) * out[i - 1]!;
  return out;
}

const refEma = (xs: ArrayLike<number>, p: number) => refEmaFrom(xs, p, p - 1);

/** Wilder: averages of the first p changes, then (prev*(p-1)+x)/p; RSI = 100 - 100/(1+RS). */
function refRsi(xs: ArrayLike<number>, p: number): number[] {
  const out: number[] = Array.from({ length: xs.length }, () => NaN_);
  if (xs.length <= p) return out;
  const gains: number[] = [];
  const losses: number[] = [];
  for (let i = 1; i < xs.length; i++) {
    const c = xs[i]! - xs[i - 1]!;
    gains.push(Math.max(c, 0));
    losses.push(Math.max(-c, 0));
  }
  let g = mean(gains, 0, p - 1);
  let l = mean(losses, 0, p - 1);
  const value = () => (g === 0 && l === 0 ? NaN_ : l === 0 ? 100 : 100 - 100 / (1 + g / l));
  out[p] = value();
  for (let i = p + 1; i < xs.length; i++) {
    g = (g * (p - 1) + gains[i - 1]!) / p;
    l = (l * (p - 1) + losses[i - 1]!) / p;
    out[i] = value();
  }
  return out;
}

function refMacd(xs: ArrayLike<number>, fast: number, slow: number, signal: number) {
  const fastEma = refEmaFrom(xs, fast, slow - 1);
  const slowEma = refEmaFrom(xs, slow, slow - 1);
  const lineFull = xs.length >= slow ? fastEma.map((f, i) => f - slowEma[i]!) : fastEma.map(() => NaN_);
  const line = lineFull.slice(slow - 1);
  const signalTail = refEmaFrom(line, signal, signal - 1);
  const first = slow - 1 + signal - 1;
  const nans = (): number[] => Array.from({ length: xs.length }, () => NaN_);
  const m = nans();
  const s = nans();
  const h = nans();
  for (let i = first; i < xs.length; i++) {
    m[i] = lineFull[i]!;
    s[i] = signalTail[i - (slow - 1)]!;
    h[i] = m[i]! - s[i]!;
  }
  return { macd: m, signal: s, histogram: h };
}

function refBollinger(xs: ArrayLike<number>, p: number, k: number) {
  const middle = refSma(xs, p);
  const sd = middle.map((m, i) => {
    if (Number.isNaN(m)) return NaN_;
    let ss = 0;
    for (let j = i - p + 1; j <= i; j++) ss += (xs[j]! - m) ** 2;
    return Math.sqrt(ss / p);
  });
  return { upper: middle.map((m, i) => m + k * sd[i]!), middle, lower: middle.map((m, i) => m - k * sd[i]!) };
}

function refStochastic(h: number[], l: number[], c: number[], kp: number, ks: number, dp: number) {
  const fastK = c.map((close, i) => {
    if (i < kp - 1) return NaN_;
    const hh = Math.max(...h.slice(i - kp + 1, i + 1));
    const ll = Math.min(...l.slice(i - kp + 1, i + 1));
    return hh === ll ? NaN_ : (100 * (close - ll)) / (hh - ll);
  });
  const slowK = refSma(fastK, ks);
  const d = refSma(slowK, dp);
  const first = kp - 1 + ks - 1 + dp - 1;
  return { k: slowK.map((v, i) => (i < first ? NaN_ : v)), d };
}

// --- seeded data --------------------------------------------------------------------------------

type Walk = { name: string; close: number[]; high: number[]; low: number[]; scale: number };

/** A random walk near `start` with steps up to `step`, some flat stretches (repeated bars). */
function walk(name: string, seed: number, length: number, start: number, step: number): Walk {
  const rand = mulberry32(seed);
  const close: number[] = [];
  const high: number[] = [];
  const low: number[] = [];
  let price = start;
  let flat = 0;
  for (let i = 0; i < length; i++) {
    if (flat === 0 && rand() < 0.01) flat = 5 + Math.floor(rand() * 30);
    if (flat > 0) {
      flat--;
      close.push(price);
      high.push(price);
      low.push(price);
      continue;
    }
    price = Math.max(step, price + (rand() - 0.5) * 2 * step);
    close.push(price);
    high.push(price + rand() * step);
    low.push(price - rand() * step);
  }
  return { name, close, high, low, scale: start };
}

const WALKS: Walk[] = [
  walk('stock near 100', 1, 3000, 100, 1),
  walk('BTC near 50,000', 2, 3000, 50_000, 40),
  walk('micro token near 1e-5', 3, 3000, 1e-5, 1e-7),
  walk('short, choppy', 4, 60, 20, 3),
];

// --- (a) hand-computed ----------------------------------------------------------------------------

describe('hand-computed small series', () => {
  it('SMA(3) of 1..10: (1+2+3)/3 = 2 at index 2, then each window one higher', () => {
    expectSeries(sma(range(1, 10), 3), [NaN_, NaN_, 2, 3, 4, 5, 6, 7, 8, 9]);
  });

  it('EMA(3) of 1..10: seed (1+2+3)/3 = 2, k = 2/4 = 0.5, so (4-2)*0.5+2 = 3, (5-3)*0.5+3 = 4, ...', () => {
    expectSeries(ema(range(1, 10), 3), [NaN_, NaN_, 2, 3, 4, 5, 6, 7, 8, 9]);
  });

  it('EMA(3) of 10, 11, 9, 12, 8: seed 10, then (12-10)*0.5+10 = 11, (8-11)*0.5+11 = 9.5', () => {
    expectSeries(ema([10, 11, 9, 12, 8], 3), [NaN_, NaN_, 10, 11, 9.5]);
  });

  it('RSI(3) step by step with fractions', () => {
    // Prices 10, 11, 10.5, 12, 11, 11.5, 13 -> changes +1, -0.5, +1.5, -1, +0.5, +1.5.
    // First 3 changes: avgGain = (1 + 1.5)/3 = 5/6, avgLoss = 0.5/3 = 1/6 -> RSI = 100*(5/6)/1.
    // -1:   gain = (5/6*2 + 0)/3 = 5/9,          loss = (1/6*2 + 1)/3 = 4/9  -> 100*5/9.
    // +0.5: gain = (5/9*2 + 1/2)/3 = 29/54,      loss = (4/9*2)/3 = 16/54    -> 100*29/45.
    // +1.5: gain = (29/54*2 + 3/2)/3 = 139/162,  loss = (16/54*2)/3 = 32/162 -> 100*139/171.
    expectSeries(rsi([10, 11, 10.5, 12, 11, 11.5, 13], 3), [NaN_, NaN_, NaN_, 500 / 6, 500 / 9, 2900 / 45, 13900 / 171]);
  });

  it('RSI(14) of the two-decimal StockCharts closes: gains 3.34, losses 1.40 over 14 changes', () => {
    // Changes: -.25 +.06 -.54 +.72 +.50 +.27 +.32 +.42 +.24 -.19 +.14 -.42 +.67 0.
    // Gains .06+.72+.50+.27+.32+.42+.24+.14+.67 = 3.34; losses .25+.54+.19+.42 = 1.40.
    // RSI = 100 * (3.34/14) / ((3.34 + 1.40)/14) = 100 * 3.34 / 4.74.
    const closes = [44.34, 44.09, 44.15, 43.61, 44.33, 44.83, 45.1, 45.42, 45.84, 46.08, 45.89, 46.03, 45.61, 46.28, 46.28];
    expect(rsi(closes)[14]).toBeCloseTo((100 * 3.34) / 4.74, 9);
  });

  it('MACD(2, 3, 2): the fast EMA is seeded on the window ending where the slow one is', () => {
    // Prices 1, 2, 4, 8, 16. Slow k = 2/4 = 1/2, fast k = 2/3, signal k = 2/3.
    // Index 2: slow seed (1+2+4)/3 = 7/3; fast seed (2+4)/2 = 3 (not (1+2)/2); line 3 - 7/3 = 2/3.
    // Index 3 (8): fast (8-3)*2/3+3 = 19/3; slow (8-7/3)/2+7/3 = 31/6; line 38/6-31/6 = 7/6.
    //   Signal seed = (2/3 + 7/6)/2 = 11/12 at index 3 = (slow-1)+(signal-1); hist 7/6-11/12 = 1/4.
    // Index 4 (16): fast (16-19/3)*2/3+19/3 = 115/9; slow (16-31/6)/2+31/6 = 127/12;
    //   line 115/9-127/12 = 79/36; signal (79/36-11/12)*2/3+11/12 = 191/108; hist 23/54.
    const result = macd([1, 2, 4, 8, 16], 2, 3, 2);
    expectSeries(result.macd, [NaN_, NaN_, NaN_, 7 / 6, 79 / 36]);
    expectSeries(result.signal, [NaN_, NaN_, NaN_, 11 / 12, 191 / 108]);
    expectSeries(result.histogram, [NaN_, NaN_, NaN_, 1 / 4, 23 / 54]);
  });

  it('Bollinger(8, 2) of 2, 4, 4, 4, 5, 5, 7, 9: mean 5, population deviation sqrt(32/8) = 2', () => {
    const { upper, middle, lower } = bollinger([2, 4, 4, 4, 5, 5, 7, 9], 8, 2);
    const warm = Array.from({ length: 7 }, () => NaN_);
    expectSeries(middle, [...warm, 5]);
    expectSeries(upper, [...warm, 9]);
    expectSeries(lower, [...warm, 1]);
  });

  it('stochastic(3, 2, 2) by hand', () => {
    const high = [10, 12, 11, 13, 14, 12, 15];
    const low = [8, 9, 9, 10, 12, 10, 11];
    const close = [9, 11, 10, 12, 13, 11, 14];
    // Fast %K from index 2: 100*(10-8)/(12-8) = 50; 100*(12-9)/(13-9) = 75; 100*(13-9)/(14-9) = 80;
    // 100*(11-10)/(14-10) = 25; 100*(14-10)/(15-10) = 80.
    // %K = SMA2: 62.5, 77.5, 52.5, 52.5 from index 3; %D = SMA2: 70, 65, 52.5 from index 4.
    // Both start at (3-1)+(2-1)+(2-1) = 4, so %K's 62.5 at index 3 is not output.
    const { k, d } = stochastic(high, low, close, 3, 2, 2);
    expectSeries(k, [NaN_, NaN_, NaN_, NaN_, 77.5, 52.5, 52.5]);
    expectSeries(d, [NaN_, NaN_, NaN_, NaN_, 70, 65, 52.5]);
  });
});

// --- (b) against the naive references on random walks -----------------------------------------------

describe('ATR and session VWAP by hand (issue 30)', () => {
  it("ATR(3), Wilder's as TA-Lib: the mean of the first 3 true ranges at index 3, then (prev * 2 + TR) / 3", () => {
    const high = [10, 11, 12, 11, 14, 13];
    const low = [8, 9, 9, 10, 12, 8];
    const close = [9, 10, 11, 10, 13, 9];
    // TR1 = max(11-9, |11-9|, |9-9|) = 2; TR2 = max(3, |12-10|, |9-10|) = 3; TR3 = max(1, |11-11|, |10-11|) = 1
    // ATR3 = (2+3+1)/3 = 2; TR4 = max(2, |14-10|, |12-10|) = 4 -> (2*2+4)/3 = 8/3;
    // TR5 = max(5, |13-13|, |8-13|) = 5 -> (8/3*2+5)/3 = 31/9.
    expectSeries(atr(high, low, close, 3), [NaN_, NaN_, NaN_, 2, 8 / 3, 31 / 9]);
    expectSeries(atr(high, low, close, 6), Array(6).fill(NaN_));
  });

  it('session VWAP: typical price weighted by volume since the UTC day began; NaN while the session has no volume', () => {
    const HOUR = 3_600_000;
    const start = Date.UTC(2026, 2, 1, 22);
    const time = [0, 1, 2, 3, 4].map((h) => start + h * HOUR);
    const high = [12, 14, 21, 33, 24];
    const low = [8, 10, 19, 27, 18];
    const close = [10, 12, 20, 30, 21];
    const volume = [2, 6, 0, 3, 1];
    // Typical prices 10, 12, 20, 30, 21. Day 1: 10; (10*2 + 12*6)/8 = 11.5. Day 2 begins at the
    // third candle: no volume yet -> NaN; then 30*3/3 = 30; (90 + 21)/4 = 27.75.
    expectSeries(vwap(time, high, low, close, volume, HOUR), [10, 11.5, NaN_, 30, 27.75]);
    // Daily candles are their own sessions: the typical price itself, NaN without volume.
    expectSeries(vwap(time, high, low, close, volume, 24 * HOUR), [10, 12, NaN_, 30, 21]);
  });
});

describe.each(WALKS)('matches the textbook definitions on a random walk: $name', ({ close, high, low, scale }) => {
  it('SMA', () => {
    for (const p of [1, 2, 5, 20, 50]) expectSeries(sma(close, p), refSma(close, p), scale);
  });

  it('EMA', () => {
    for (const p of [1, 3, 12, 26, 50]) expectSeries(ema(close, p), refEma(close, p), scale);
  });

  it('RSI', () => {
    for (const p of [2, 6, 14, 30]) expectSeries(rsi(close, p), refRsi(close, p));
  });

  it('MACD', () => {
    for (const [f, s, g] of [
      [12, 26, 9],
      [5, 35, 5],
      [3, 4, 1],
    ] as const) {
      const ours = macd(close, f, s, g);
      const ref = refMacd(close, f, s, g);
      expectSeries(ours.macd, ref.macd, scale);
      expectSeries(ours.signal, ref.signal, scale);
      expectSeries(ours.histogram, ref.histogram, scale);
    }
  });

  it('Bollinger bands', () => {
    for (const [p, k] of [
      [20, 2],
      [5, 1.5],
      [1, 2],
    ] as const) {
      const ours = bollinger(close, p, k);
      const ref = refBollinger(close, p, k);
      expectSeries(ours.middle, ref.middle, scale);
      expectSeries(ours.upper, ref.upper, scale);
      expectSeries(ours.lower, ref.lower, scale);
    }
  });

  it('stochastic', () => {
    for (const [kp, ks, dp] of [
      [14, 3, 3],
      [5, 1, 1],
      [9, 4, 2],
    ] as const) {
      const ours = stochastic(high, low, close, kp, ks, dp);
      const ref = refStochastic(high, low, close, kp, ks, dp);
      expectSeries(ours.k, ref.k);
      expectSeries(ours.d, ref.d);
    }
  });
});

describe('long series', () => {
  it('sliding sums do not drift: SMA and Bollinger over 1,000,000 points near 1e6', () => {
    const rand = mulberry32(7);
    const xs = new Float64Array(1_000_000);
    let price = 1e6;
    for (let i = 0; i < xs.length; i++) xs[i] = price += (rand() - 0.5) * 10;
    const p = 20;
    const means = sma(xs, p);
    const bands = bollinger(xs, p, 2);
    for (let i = xs.length - 1; i > xs.length - 200_000; i -= 997) {
      const m = mean(xs, i - p + 1, i);
      let ss = 0;
      for (let j = i - p + 1; j <= i; j++) ss += (xs[j]! - m) ** 2;
      const sd = Math.sqrt(ss / p);
      expect(Math.abs(means[i]! - m)).toBeLessThanOrEqual(1e-9 * m);
      // The deviation to 1e-9 of itself, a far stricter test than of the price level.
      expect(Math.abs((bands.upper[i]! - bands.middle[i]!) / 2 - sd)).toBeLessThanOrEqual(1e-9 * sd);
    }
  });

  it('a spike leaving the window leaves no trace: a flat window has a deviation of exactly 0', () => {
    const xs = [...Array.from({ length: 30 }, () => 50_000.12), 1e12, ...Array.from({ length: 40 }, () => 50_000.12)];
    const { upper, middle, lower } = bollinger(xs, 20, 2);
    expect(upper[30]! - middle[30]!).toBeGreaterThan(1e11);
    for (let i = 51; i < xs.length; i++) {
      expect(upper[i]).toBe(50_000.12);
      expect(lower[i]).toBe(50_000.12);
    }
  });
});

// --- (c) the published example ---------------------------------------------------------------------

describe('published RSI example (StockCharts, "Relative Strength Index" ChartSchool table)', () => {
  // The table shows closes to two decimals, but its RSI column comes from the spreadsheet's
  // four-decimal closes (44.3389, ...); with the rounded closes the first RSI is 70.46, not 70.53.
  const closes = [
    44.3389, 44.0902, 44.1497, 43.6124, 44.2778, 44.8264, 45.0955, 45.4245, 45.8433, 46.0826, 45.8931, 46.0328, 45.614, 46.282, 46.282,
    46.0028, 46.0328, 46.4116, 46.2222, 45.6439,
  ];

  it('gives 70.53, 66.32, 66.55, 69.41, 66.36, 57.97 to the published two decimals', () => {
    const values = rsi(closes, 14);
    expect(Array.from(values.slice(0, 14)).every(Number.isNaN)).toBe(true);
    expect(Array.from(values.slice(14), (v) => v.toFixed(2))).toEqual(['70.53', '66.32', '66.55', '69.41', '66.36', '57.97']);
  });
});

// --- (d) flat data ------------------------------------------------------------------------------------

describe('flat data', () => {
  it('RSI is undefined (NaN), not 0, where nothing moved', () => {
    expect(Array.from(rsi(Array.from({ length: 40 }, () => 101.5))).every(Number.isNaN)).toBe(true);
    // Once a price moves, the averages are no longer 0 and the RSI is defined again.
    const values = rsi([...Array.from({ length: 20 }, () => 10), 11], 14);
    expect(values[19]).toBeNaN();
    expect(values[20]).toBe(100);
  });

  it('%K and %D are NaN where the high equals the low over the window', () => {
    const flat = Array.from({ length: 30 }, () => 7);
    const { k, d } = stochastic(flat, flat, flat);
    expect(Array.from(k).every(Number.isNaN)).toBe(true);
    expect(Array.from(d).every(Number.isNaN)).toBe(true);
  });

  it('Bollinger bands collapse onto the mean', () => {
    const { upper, middle, lower } = bollinger(Array.from({ length: 25 }, () => 3.3), 20, 2);
    expect(upper[24]).toBe(middle[24]);
    expect(lower[24]).toBe(middle[24]);
  });
});

// --- (e) shapes and arguments -------------------------------------------------------------------------

describe('shapes and arguments', () => {
  it('every output is a Float64Array as long as the input, all NaN when the input is too short', () => {
    for (const n of [0, 1, 5, 33, 34]) {
      const xs = range(1, n);
      const outputs = [
        sma(xs, 5),
        ema(xs, 5),
        rsi(xs),
        ...Object.values(macd(xs)),
        ...Object.values(bollinger(xs)),
        ...Object.values(stochastic(xs, xs, xs)),
      ];
      for (const out of outputs) {
        expect(out).toBeInstanceOf(Float64Array);
        expect(out.length).toBe(n);
      }
    }
    expect(Array.from(rsi(range(1, 14))).every(Number.isNaN)).toBe(true);
    expect(rsi(range(1, 15))[14]).toBe(100);
    // MACD(12, 26, 9) first gives a value at index 33 for all three lines.
    const m = macd(range(1, 34).map((x) => Math.sqrt(x)));
    expect(Number.isNaN(m.macd[32]!) && Number.isNaN(m.signal[32]!) && Number.isNaN(m.histogram[32]!)).toBe(true);
    expect([m.macd[33], m.signal[33], m.histogram[33]].every(Number.isFinite)).toBe(true);
  });

  it('accepts typed arrays as well as plain arrays', () => {
    const xs = range(1, 30).map((x) => Math.sin(x) * 10 + 50);
    expect(rsi(Float64Array.from(xs))).toEqual(rsi(xs));
    expect(sma(Float32Array.from([1, 2, 3]), 2)[2]).toBe(2.5);
  });

  it('a NaN input spoils only the windows that contain it in SMA', () => {
    expectSeries(sma([1, 2, NaN_, 4, 5, 6, 7], 2), [NaN_, 1.5, NaN_, NaN_, 4.5, 5.5, 6.5]);
  });

  it('rejects bad arguments with a RangeError that names them', () => {
    expect(() => sma([1, 2], 0)).toThrow(RangeError);
    expect(() => ema([1, 2], 2.5)).toThrow(/period must be an integer >= 1, got 2.5/);
    expect(() => rsi([1, 2], NaN_)).toThrow(RangeError);
    expect(() => macd([1, 2], 26, 12)).toThrow(/fast \(26\) must be shorter than slow \(12\)/);
    expect(() => macd([1, 2], 12, 12)).toThrow(RangeError);
    expect(() => macd([1, 2], 12, 26, 0)).toThrow(/signal must be/);
    expect(() => bollinger([1, 2], 20, -1)).toThrow(/k must be/);
    expect(() => bollinger([1, 2], 20, Infinity)).toThrow(RangeError);
    expect(() => stochastic([1, 2], [1], [1, 2])).toThrow(/same length/);
    expect(() => stochastic([1], [1], [1], 14, 0)).toThrow(/kSmooth/);
  });
});
