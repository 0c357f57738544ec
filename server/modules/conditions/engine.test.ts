import { describe, expect, it } from 'vitest';
import { ZCondition, type TClause, type TCondition, type TIndicatorOperand, type TOperand } from '../../../contracts/conditions.ts';
import type { TCandle, TCandleTimeframe } from '../../../contracts/market.ts';
import { conditionCandlesNeeded, latestClosedIndex, prepareConditions, type ConditionSeries } from './engine.ts';

// Every expected answer below is worked out by hand from decision 0071's definitions, in the
// comment beside it; never from the code under test.

const HOUR = 3_600_000;
const DAY = 24 * HOUR;
const T0 = Date.UTC(2026, 2, 2); // a Monday, 00:00 UTC

/** Hourly candles from `start` whose close is each value (open = close, high/low around it). */
function hourly(closes: number[], start = T0, timeframeMs = HOUR): TCandle[] {
  return closes.map((close, i) => ({ time: start + i * timeframeMs, open: close, high: close + 1, low: close - 1, close, volume: 10 }));
}

const close: TIndicatorOperand = { indicator: 'close' };
const num = (value: number): TOperand => ({ indicator: 'number', value });
let ids = 0;
function condition(clauses: TCondition['when']['clauses'], join: 'all' | 'any' = 'all'): TCondition {
  ids++;
  return ZCondition.parse({ id: `00000000-0000-4000-8000-${String(ids).padStart(12, '0')}`, when: { kind: 'group', join, clauses }, trigger: { mode: 'once-per-close' } });
}
const clause = (fields: Omit<TClause, 'kind'>): TClause => ({ kind: 'clause', ...fields });

/** met at every candle of one condition on hourly closes. */
function metSeries(c: TCondition, closes: number[]): Array<boolean | null> {
  const prepared = prepareConditions([c], '1h', new Map([['1h', hourly(closes)]]));
  return closes.map((_, i) => prepared.met(0, i));
}

describe('crossings read the candle and the one before, on both sides', () => {
  it('crosses above: equal values then a rise is a cross; staying equal is not', () => {
    // i=1: 1<=2 but 2>2 fails; i=2: 2<=2 but 2>2 fails; i=3: 2<=2 and 3>2: cross; i=4: 3<=2 fails;
    // i=5: 2<=2 and 2>2 fails; i=6: 2<=2 and 5>2: cross again.
    expect(metSeries(condition([clause({ left: close, operator: 'crosses-above', right: num(2) })]), [1, 2, 2, 3, 2, 2, 5])).toEqual([null, false, false, true, false, false, true]);
  });

  it('a touch that goes back is no cross in its direction: 1, 2, 1 never crosses above 2', () => {
    const closes = [1, 2, 1];
    expect(metSeries(condition([clause({ left: close, operator: 'crosses-above', right: num(2) })]), closes)).toEqual([null, false, false]);
    // Crosses below mirrors it: at i=2, 2>=2 and 1<2, so leaving the level downwards is one.
    expect(metSeries(condition([clause({ left: close, operator: 'crosses-below', right: num(2) })]), closes)).toEqual([null, false, true]);
    // From above: 3, 2, 3 touches 2 and goes back: never below.
    expect(metSeries(condition([clause({ left: close, operator: 'crosses-below', right: num(2) })]), [3, 2, 3])).toEqual([null, false, false]);
  });

  it('crosses (either way) is crosses above or crosses below', () => {
    // 1->3 over 2: up at i=1; 3->1: down at i=2; 1->1: neither at i=3.
    expect(metSeries(condition([clause({ left: close, operator: 'crosses', right: num(2) })]), [1, 3, 1, 1])).toEqual([null, true, true, false]);
  });

  it('both sides move: close against the open of the same candles', () => {
    // candles (open, close): (5,4) (5,6) (7,6) (6,6) (6,7)
    const candles: TCandle[] = [
      [5, 4],
      [5, 6],
      [7, 6],
      [6, 6],
      [6, 7],
    ].map(([open, c], i) => ({ time: T0 + i * HOUR, open: open!, high: 10, low: 1, close: c!, volume: 1 }));
    const c = condition([clause({ left: close, operator: 'crosses-above', right: { indicator: 'open' } })]);
    const prepared = prepareConditions([c], '1h', new Map([['1h', candles]]));
    // i=1: 4<=5, 6>5 yes; i=2: 6<=5 no; i=3: 6<=7 but 6>6 no; i=4: 6<=6 and 7>6 yes.
    expect(candles.map((_, i) => prepared.met(0, i))).toEqual([null, true, false, false, true]);
    const outcome = prepared.outcome(0, 4);
    expect(outcome.clauses[0]!.sides).toEqual([
      { label: 'close', at: 7, before: 6 },
      { label: 'open', at: 6, before: 6 },
    ]);
  });

  it('a NaN on either side at i or i-1 leaves the crossing undecided', () => {
    // NaN at index 2: undecided at 2 (now) and 3 (before); defined again at 4.
    expect(metSeries(condition([clause({ left: close, operator: 'crosses-above', right: num(2) })]), [1, 3, Number.NaN, 1, 3])).toEqual([null, true, null, null, true]);
  });

  it('warm-up: SMA(3) against SMA(2) is undecided until both sides and their previous values exist', () => {
    // closes 3,1,2,6: SMA2 = -, 2, 1.5, 4; SMA3 = -, -, 2, 3.
    // i=2: SMA3[1] undefined -> undecided; i=3: 1.5<=2 and 4>3 -> cross.
    const c = condition([clause({ left: { indicator: 'sma', period: 2 }, operator: 'crosses-above', right: { indicator: 'sma', period: 3 } })]);
    expect(metSeries(c, [3, 1, 2, 6])).toEqual([null, null, null, true]);
  });
});

describe('levels', () => {
  it('is above / is below are strict, with warm-up undecided', () => {
    // SMA(2) of 1, 3, 2, 2: -, 2, 2.5, 2.
    const sma2: TIndicatorOperand = { indicator: 'sma', period: 2 };
    expect(metSeries(condition([clause({ left: sma2, operator: 'above', right: num(2) })]), [1, 3, 2, 2])).toEqual([null, false, true, false]);
    expect(metSeries(condition([clause({ left: sma2, operator: 'below', right: num(2.5) })]), [1, 3, 2, 2])).toEqual([null, true, false, true]);
  });

  it('is between is inclusive, is outside strict', () => {
    const closes = [1, 2, 3, 4, 5];
    expect(metSeries(condition([clause({ left: close, operator: 'between', lower: num(2), upper: num(4) })]), closes)).toEqual([false, true, true, true, false]);
    expect(metSeries(condition([clause({ left: close, operator: 'outside', lower: num(2), upper: num(4) })]), closes)).toEqual([true, false, false, false, true]);
  });

  it('a gap (NaN) in a side is undecided at that candle only', () => {
    expect(metSeries(condition([clause({ left: close, operator: 'above', right: num(2) })]), [3, Number.NaN, 3])).toEqual([true, null, true]);
  });
});

describe('windows', () => {
  it('rises by at least 10% within 2 candles: against the lowest of the 2 before', () => {
    // i=2: min(100,95)=95, 104/95 = +9.47% no; i=3: min(95,104)=95, 110/95 = +15.8% yes;
    // i=4: min(104,110)=104, 100/104 < 0 no.
    expect(metSeries(condition([clause({ left: close, operator: 'rises-by', percent: 10, candles: 2 })]), [100, 95, 104, 110, 100])).toEqual([null, null, false, true, false]);
  });

  it('falls by at least 10% within 2 candles: against the highest of the 2 before', () => {
    // i=4: max(104,110)=110, 100 is -9.09% no; i=5: max(110,100)=110, 98 is -10.9% yes.
    expect(metSeries(condition([clause({ left: close, operator: 'falls-by', percent: 10, candles: 2 })]), [100, 95, 104, 110, 100, 98])).toEqual([null, null, false, false, false, true]);
  });

  it('rising / falling for 2 candles: two strict steps', () => {
    const closes = [1, 2, 3, 3, 4, 5];
    // i=2: 1<2<3 yes; i=3: 3=3 no; i=4: 3=3 no; i=5: 3<4<5 yes.
    expect(metSeries(condition([clause({ left: close, operator: 'rising', candles: 2 })]), closes)).toEqual([null, null, true, false, false, true]);
    expect(metSeries(condition([clause({ left: close, operator: 'falling', candles: 2 })]), [5, 4, 3, 3, 2, 1])).toEqual([null, null, true, false, false, true]);
  });

  it('a NaN inside the window leaves it undecided until it has left the window', () => {
    // Window for i is i-2..i: holds the NaN at index 2 for i = 2, 3, 4.
    expect(metSeries(condition([clause({ left: close, operator: 'rising', candles: 2 })]), [1, 2, Number.NaN, 3, 4, 5])).toEqual([null, null, null, null, null, true]);
  });

  it('values that differ by float noise only are equal: not rising, not above, not crossing', () => {
    const noisy = 0.1 + 0.2; // 0.30000000000000004
    expect(metSeries(condition([clause({ left: close, operator: 'rising', candles: 1 })]), [0.3, noisy])).toEqual([null, false]);
    expect(metSeries(condition([clause({ left: close, operator: 'above', right: num(0.3) })]), [noisy])).toEqual([false]);
    expect(metSeries(condition([clause({ left: close, operator: 'between', lower: num(0.1), upper: num(0.3) })]), [noisy])).toEqual([true]);
    expect(metSeries(condition([clause({ left: close, operator: 'crosses-above', right: num(0.3) })]), [0.2, noisy, 0.31])).toEqual([null, false, true]);
    // A real step, however small against the price, still counts.
    expect(metSeries(condition([clause({ left: close, operator: 'rising', candles: 1 })]), [0.00001234, 0.00001235])).toEqual([null, true]);
  });

  it('a rise from a lowest of 0 is not a percentage: undecided', () => {
    expect(metSeries(condition([clause({ left: { indicator: 'volume' }, operator: 'rises-by', percent: 10, candles: 1 })]), [1, 2])).toEqual([null, false]);
    const candles = hourly([1, 2, 3]).map((c, i) => ({ ...c, volume: [0, 5, 6][i]! }));
    const prepared = prepareConditions([condition([clause({ left: { indicator: 'volume' }, operator: 'rises-by', percent: 10, candles: 1 })])], '1h', new Map([['1h', candles]]));
    // i=1: from 0 -> undecided; i=2: 5 -> 6 is +20%.
    expect([0, 1, 2].map((i) => prepared.met(0, i))).toEqual([null, null, true]);
  });
});

describe('joins', () => {
  const undecided = clause({ left: { indicator: 'sma', period: 5 }, operator: 'above', right: num(0) }); // undefined on 3 candles
  const yes = clause({ left: close, operator: 'above', right: num(0) });
  const no = clause({ left: close, operator: 'below', right: num(0) });
  const at = (c: TCondition) => metSeries(c, [1, 2, 3])[2];

  it('all of: a false one makes it false; else an undecided one makes it undecided', () => {
    expect(at(condition([yes, undecided]))).toBeNull();
    expect(at(condition([no, undecided]))).toBe(false);
    expect(at(condition([yes, yes]))).toBe(true);
  });

  it('any of: a true one makes it met; else an undecided one makes it undecided', () => {
    expect(at(condition([yes, undecided], 'any'))).toBe(true);
    expect(at(condition([no, undecided], 'any'))).toBeNull();
    expect(at(condition([no, no], 'any'))).toBe(false);
  });

  it('a group inside the top group joins on its own', () => {
    // all of [yes, any of [no, yes]] = true; all of [yes, all of [no, undecided]] = false.
    expect(at(condition([yes, { kind: 'group', join: 'any', clauses: [no, yes] }]))).toBe(true);
    expect(at(condition([yes, { kind: 'group', join: 'all', clauses: [no, undecided] }]))).toBe(false);
    expect(at(condition([no, { kind: 'group', join: 'all', clauses: [yes, undecided] }], 'any'))).toBeNull();
  });

  it('outcome: per clause its path, words, answer and sides', () => {
    const c = condition([yes, { kind: 'group', join: 'any', clauses: [no, undecided] }], 'any');
    const prepared = prepareConditions([c], '1h', new Map([['1h', hourly([1, 2, 3])]]));
    expect(prepared.outcome(0, 2)).toEqual({
      met: true,
      clauses: [
        { path: '0', text: 'close is above 0', met: true, sides: [{ label: 'close', at: 3, before: 2 }, { label: '0', at: 0, before: 0 }] },
        { path: '1.0', text: 'close is below 0', met: false, sides: [{ label: 'close', at: 3, before: 2 }, { label: '0', at: 0, before: 0 }] },
        { path: '1.1', text: 'SMA (5) is above 0', met: null, sides: [{ label: 'SMA (5)', at: null, before: null }, { label: '0', at: 0, before: 0 }] },
      ],
    });
    // The first candle has no candle before: null there.
    expect(prepared.outcome(0, 0).clauses[0]!.sides[0]).toEqual({ label: 'close', at: 1, before: null });
  });
});

describe('a longer timeframe counts only once closed', () => {
  // Hourly candles from 12:00 on day 0 to 11:00 on day 2 (48 candles); daily candles of days 0..2
  // (the third still forming at the end). The daily close is 100, 200, 300.
  const start = T0 + 12 * HOUR;
  const hours = hourly(Array.from({ length: 48 }, (_, i) => 150 + i), start);
  const days: TCandle[] = [100, 200, 300].map((c, d) => ({ time: T0 + d * DAY, open: c, high: c, low: c, close: c, volume: 1 }));
  const series: ConditionSeries = new Map<TCandleTimeframe, TCandle[]>([
    ['1h', hours],
    ['1d', days],
  ]);
  const dailyClose: TIndicatorOperand = { indicator: 'close', timeframe: '1d' };

  it("the daily value changes exactly at the hourly candle whose close is the day's close", () => {
    const c = condition([clause({ left: close, operator: 'above', right: dailyClose })]);
    const prepared = prepareConditions([c], '1h', series);
    const daily = hours.map((_, i) => prepared.outcome(0, i).clauses[0]!.sides[1]!.at);
    // Index 11 is the 23:00 candle of day 0: it closes at 24:00 with the day, so day 0 counts from it.
    expect(daily.slice(0, 11)).toEqual(Array(11).fill(null));
    expect(daily.slice(11, 35)).toEqual(Array(24).fill(100));
    // Index 35 is 23:00 on day 1; day 2 has not closed by the end.
    expect(daily.slice(35)).toEqual(Array(13).fill(200));
    expect(prepared.met(0, 10)).toBeNull();
    expect(prepared.met(0, 11)).toBe(true); // 161 > 100
    expect(prepared.met(0, 34)).toBe(true); // 184 > 100: day 1 has not closed yet
    expect(prepared.met(0, 35)).toBe(false); // 185 < 200: day 1 closed with this candle
  });
});

describe('helpers', () => {
  it('latestClosedIndex: the latest candle with open + length <= now', () => {
    const candles = hourly([1, 2, 3]);
    expect(latestClosedIndex(candles, '1h', T0 + 3 * HOUR)).toBe(2);
    expect(latestClosedIndex(candles, '1h', T0 + 3 * HOUR - 1)).toBe(1);
    expect(latestClosedIndex(candles, '1h', T0 + HOUR - 1)).toBe(-1);
  });

  it('conditionCandlesNeeded: first defined index + what the operator reads before + 2, per timeframe', () => {
    const c = condition([
      // SMA(200) on 1d is defined from index 199; a crossing reads one before: 199 + 1 + 2 = 202.
      clause({ left: close, operator: 'crosses-above', right: { indicator: 'sma', period: 200, timeframe: '1d' } }),
      // RSI(14) defined from 14; rising for 3 reads 3 before: 14 + 3 + 2 = 19.
      clause({ left: { indicator: 'rsi', period: 14 }, operator: 'rising', candles: 3 }),
      // VWAP on 1h reads the UTC day so far, 23 candles before the latest: 23 + 1 + 2 = 26.
      clause({ left: { indicator: 'vwap' }, operator: 'above', right: num(1) }),
    ]);
    expect(Object.fromEntries(conditionCandlesNeeded([c], '1h'))).toEqual({ '1h': 26, '1d': 202 });
  });
});
