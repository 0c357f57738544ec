import { describe, expect, it } from 'vitest';
import { AGENT_TEMPLATES, defaultAgentConfig, type TAgentConfig, type TAgentTemplate } from '../../../contracts/agents.ts';
import { BACKTEST_FIRINGS_LISTED, ZBacktestResult, type TBacktestMarket, type TBacktestResult, type TBacktestRow } from '../../../contracts/backtest.ts';
import { ZCondition, type TClause, type TCondition, type TTrigger } from '../../../contracts/conditions.ts';
import type { TCandle, TCandleTimeframe } from '../../../contracts/market.ts';
import { candlesNeeded } from '../runtime/evaluate.ts';
import { planRun } from '../runtime/run-plan.ts';
import { historyNeeded, NOT_TESTED_REASON, runBacktest, type BacktestMarketInput } from './backtest-engine.ts';

const HOUR = 3_600_000;
const stockTemplate = AGENT_TEMPLATES[0]!;
const cryptoTemplate = AGENT_TEMPLATES[1]!;
type Thresholds = TAgentConfig['notifications']['thresholds'];

function planOf(template: TAgentTemplate, parameters: TAgentConfig['parameters'], thresholds: Thresholds = []) {
  const defaults = defaultAgentConfig(template);
  return planRun(template.id, { ...defaults, notifications: { ...defaults.notifications, thresholds }, parameters: { ...defaults.parameters, ...parameters } });
}

/** The crypto monitor with only what a test sets firing: no on-chain rules, calm volatility factor. */
const cryptoPlan = (thresholds: Thresholds, priceChangeThreshold = 5) =>
  planOf(cryptoTemplate, { priceChangeThreshold, volatilityThreshold: 3, includeOnChainMetrics: false, walletTracking: false }, thresholds);

/** Candles from closes, hourly from `start`: range 1% of the close and volume 1000 unless given. */
function candles(closes: number[], overrides: Partial<Record<number, Partial<TCandle>>> = {}, start = 0): TCandle[] {
  return closes.map((close, i) => ({ time: start + i * HOUR, open: close, high: close * 1.005, low: close * 0.995, close, volume: 1000, ...overrides[i] }));
}

function market(series: TCandle[], label = 'BTC/USDT on binance'): BacktestMarketInput {
  return {
    label,
    symbol: label.split(' ')[0]!,
    source: 'binance',
    timeframe: '1h',
    simulated: false,
    candles: series,
    history: { requested: series.length, received: series.length, cached: 0, short: null },
  };
}

function backtest(
  plan: ReturnType<typeof planOf>,
  markets: Parameters<typeof runBacktest>[0]['markets'],
  options: { candles?: number; timeZone?: string; maxPerHour?: number; conditions?: TCondition[] } = {},
): TBacktestResult {
  const result = runBacktest({
    templateId: plan.templateType === 'stock' ? stockTemplate.id : cryptoTemplate.id,
    plan,
    candles: options.candles ?? 5000,
    timeZone: options.timeZone ?? 'UTC',
    channels: { email: true, inApp: true },
    ...(options.maxPerHour === undefined ? {} : { maxPerHour: options.maxPerHour }),
    ...(options.conditions === undefined ? {} : { conditions: options.conditions }),
    markets,
  });
  // Every answer is what the contract says the API sends.
  expect(ZBacktestResult.parse(result)).toEqual(result);
  return result;
}

const okMarket = (result: TBacktestResult, index = 0) => {
  const m = result.markets[index]!;
  if (!m.ok) throw new Error(`market ${index} failed: ${m.error}`);
  return m;
};
const rowOf = (m: { rows: TBacktestRow[] } | TBacktestResult, key: string): TBacktestRow => ('summary' in m ? m.summary : m.rows).find((r) => r.key === key)!;

describe('historyNeeded', () => {
  it('is the candles a live run reads before its latest, plus the candles asked for', () => {
    const stock = planOf(stockTemplate, { movingAveragePeriod: 50 });
    expect(candlesNeeded(stock)).toBe(150);
    expect(historyNeeded(stock, 500)).toBe(649);
    expect(historyNeeded(cryptoPlan([]), 50)).toBe(169);
  });
});

describe('a hand-worked series', () => {
  // Hourly closes; the crypto monitor's Price change signal (5%) and a Price change alert (5%).
  //  i:     0    1    2 (+10%)  3 (+1%)  4 (+8.91%)  5 (-10%)  6 (+1.01%)  7..24  25 (-10%)  26..29
  //  close: 100  100  110       111.1    121         108.9     110         110     99         99
  const closes = [100, 100, 110, 111.1, 121, 108.9, ...Array<number>(19).fill(110), ...Array<number>(5).fill(99)];
  const plan = cryptoPlan([{ type: 'priceChange', value: 5, message: 'Moved' }]);
  const result = backtest(plan, [market(candles(closes))]);
  const m = okMarket(result);

  it('evaluates every candle a live run could end at (a run needs two candles)', () => {
    expect(closes).toHaveLength(30);
    expect(m).toMatchObject({ evaluated: 29, from: new Date(1 * HOUR).toISOString(), to: new Date(29 * HOUR).toISOString() });
    expect(m.chart.candles).toHaveLength(29);
    expect(Object.keys(m.chart.overlays)).toEqual(['SMA 20']);
  });

  it('counts the firings of each signal and alert', () => {
    expect(m.rows.map((r) => [r.kind, r.key, r.label, r.fired, r.notifications])).toEqual([
      ['signal', 'Price change', 'Price change', 4, null],
      ['signal', 'Volatility spike', 'Volatility spike', 0, null],
      ['signal', 'Volume surge', 'Volume surge', 0, null],
      ['alert', 'threshold-0', 'Price change > 5%', 4, 3],
    ]);
    expect(m.firings.filter((f) => f.key === 'Price change').map((f) => f.time / HOUR)).toEqual([2, 4, 5, 25]);
  });

  it('measures the change after 1, 5 and 20 candles from the firing close, null past the end', () => {
    const firings = m.firings.filter((f) => f.key === 'Price change');
    // i=2 (110): 111.1, 110 (i=7), 110 (i=22); i=4 (121): 108.9, 110, 110; i=5 (108.9): 110, 110, 99; i=25 (99): 99, -, -.
    expect(firings.map((f) => f.forward)).toEqual([
      [1, 0, 0],
      [-10, -9.0909, -9.0909],
      [1.0101, 1.0101, -9.0909],
      [0, null, null],
    ]);
    // Price change points no way itself: the firing candle's own move.
    expect(firings.map((f) => f.direction)).toEqual(['up', 'up', 'down', 'down']);
    expect(firings.map((f) => f.price)).toEqual([110, 121, 108.9, 99]);
    expect(firings[0]!.detail).toBe('change +10.00% > 5% in size');
  });

  it('averages, takes the median and the share that moved the signalled way, per horizon', () => {
    expect(rowOf(m, 'Price change').forward).toEqual([
      // 1, -10, 1.0101, 0: mean -1.9975, median (0 + 1) / 2; only the first (up, +1) went its way.
      { horizon: 1, count: 4, average: -1.9975, median: 0.5, shareInDirection: 0.25 },
      // 0, -9.0909, 1.0101: none moved its way (0 is not a move).
      { horizon: 5, count: 3, average: -2.6936, median: 0, shareInDirection: 0 },
      // 0, -9.0909, -9.0909: the third (down) fell.
      { horizon: 20, count: 3, average: -6.0606, median: -9.0909, shareInDirection: 0.3333 },
    ]);
    expect(rowOf(m, 'Volume surge').forward[0]).toEqual({ horizon: 1, count: 0, average: null, median: null, shareInDirection: null });
  });

  it('notifies an alert once per event: it fires, stays firing without a new one, clears, fires again', () => {
    // 2 fires (new), 3 clears (1%), 4 fires (new), 5 still firing, 6 clears, 25 fires (new).
    const alerts = m.firings.filter((f) => f.key === 'threshold-0');
    expect(alerts.map((f) => [f.time / HOUR, f.notified])).toEqual([
      [2, true],
      [4, true],
      [5, false],
      [25, true],
    ]);
    expect(alerts[0]!.detail).toBe('Moved (BTC/USDT on binance: 10% > 5%, up from 100.00 to 110.00)');
    expect(result.notifications).toEqual({ total: 3, maxPerHour: 12, held: 0, stormNotices: 0, days: 2, perDay: 1.5, worstDay: { date: '1970-01-01', count: 2 }, floodDays: 0 });
  });

  it('marks every listed firing on the chart with its row label', () => {
    expect(m.chart.markers).toEqual(m.firings.map((f) => ({ time: f.time, rule: f.key === 'threshold-0' ? 'Price change > 5%' : f.key })));
    expect(m.chart.markers).toHaveLength(8);
  });

  it('sums the markets into the summary', () => {
    const two = backtest(plan, [market(candles(closes)), market(candles(closes), 'BTC/USD on coinbase')]);
    expect(rowOf(two, 'threshold-0')).toMatchObject({ fired: 8, notifications: 6 });
    expect(rowOf(two, 'Price change').forward[0]).toEqual({ horizon: 1, count: 8, average: -1.9975, median: 0.5, shareInDirection: 0.25 });
    // The same candle times on both markets: one notification each, as one run sends one.
    expect(two.notifications.total).toBe(3);
  });
});

describe('the once-per-event rule as the notifications apply it', () => {
  it('a reading that cannot be measured leaves the alert as it was', () => {
    // Volatility alert at 2% of the price: candles span 1%, 3% at 21, 23 and 25; candle 22
    // closes at 0, so its range cannot be measured (no condition live) and 23 is the same event.
    const wide = (close: number) => ({ high: close * 1.015, low: close * 0.985 });
    const series = candles(Array<number>(27).fill(100), { 21: wide(100), 22: { close: 0, high: 0, low: 0, open: 0 }, 23: wide(100), 25: wide(100) });
    const m = okMarket(backtest(cryptoPlan([{ type: 'volatilityAlert', value: 2, message: 'Wide' }], 20), [market(series)]));
    expect(m.firings.filter((f) => f.key === 'threshold-0').map((f) => [f.time / HOUR, f.notified])).toEqual([
      [21, true],
      [23, false],
      [25, true],
    ]);
    expect(rowOf(m, 'threshold-0')).toMatchObject({ fired: 3, notifications: 2 });
  });

  it('two alerts of one type on a market share one state, decided by both together, as applyAlerts keeps it', () => {
    // Live, one state per (market, type): it starts when any of the type's thresholds fires (each
    // firing one is in the notification) and clears only when none does. With 5% and 8% on price
    // change: +10% fires both and starts the event, notifying both; each +6% after it fires the
    // 5% one while the 8% one does not, and the event goes on: no new notification until a flat
    // candle clears it. (Before, the 8% one cleared the state and every other +6% notified.)
    const series = candles([100, 100, 110, 116.6, 123.596, 131.01176, 138.8724656, 138.8724656, 152.76]);
    const thresholds: Thresholds = [
      { type: 'priceChange', value: 5, message: 'Small' },
      { type: 'volumeSpike', value: 1000, message: 'Volume' },
      { type: 'priceChange', value: 8, message: 'Big' },
    ];
    const m = okMarket(backtest(cryptoPlan(thresholds, 20), [market(series)]));
    expect(m.firings.map((f) => [f.key, f.time / HOUR, f.notified])).toEqual([
      ['threshold-0', 2, true],
      ['threshold-2', 2, true],
      ['threshold-0', 3, false],
      ['threshold-0', 4, false],
      ['threshold-0', 5, false],
      ['threshold-0', 6, false],
      // Flat at 7 clears it; +10% at 8 is a new event.
      ['threshold-0', 8, true],
      ['threshold-2', 8, true],
    ]);
    expect(rowOf(m, 'threshold-0')).toMatchObject({ fired: 6, notifications: 2 });
    expect(rowOf(m, 'threshold-2')).toMatchObject({ fired: 2, notifications: 2 });
  });
});

describe('the per-hour cap, as live (decision 0041)', () => {
  it('holds the alerts over the cap in a sliding hour and sends one storm notice per held period', () => {
    // Ten-minute candles; +10% on every even candle after the first two, flat between (which
    // clears): an event at 20, 40, 60, 80, 100, 120 and 140 minutes. With 2 per hour:
    // 20 and 40 sent; 60 held (the hour holds 20 and 40; resumes at 80): storm notice 1;
    // 80 and 100 sent (20 and 40 left the window); 120 held (resumes at 140): storm notice 2;
    // 140 sent.
    const closes = [100, 100];
    for (let k = 1; k <= 7; k++) closes.push(100 * 1.1 ** k, 100 * 1.1 ** k);
    const series = closes.slice(0, 15).map((close, i) => ({ time: i * 600_000, open: close, high: close * 1.005, low: close * 0.995, close, volume: 1000 }));
    const result = backtest(cryptoPlan([{ type: 'priceChange', value: 5, message: 'Moved' }], 20), [market(series)], { maxPerHour: 2 });
    expect(result.notifications).toMatchObject({ maxPerHour: 2, held: 2, stormNotices: 2, total: 7 });
    // The rows count the events; every firing started one.
    expect(rowOf(okMarket(result), 'threshold-0')).toMatchObject({ fired: 7, notifications: 7 });
    // The default cap (12) holds nothing here.
    expect(backtest(cryptoPlan([{ type: 'priceChange', value: 5, message: 'Moved' }], 20), [market(series)]).notifications).toMatchObject({ maxPerHour: 12, held: 0, stormNotices: 0, total: 7 });
  });
});

describe('notifications per day', () => {
  // Hourly candles from 2024-01-14T00:00Z; an event is a jump of 10% that returns the next hour
  // (still firing: no new notification) and is flat the hour after (clears).
  const start = Date.UTC(2024, 0, 14);
  function withEvents(hours: number[], length = 72) {
    const closes = Array<number>(length).fill(100);
    for (const h of hours) closes[h] = 110;
    return candles(closes, {}, start);
  }
  // UTC 2024-01-15 01:00, 04:00, 07:00, 10:00, 20:00 are New York 2024-01-14 20:00 and 23:00,
  // then 2024-01-15 02:00, 05:00 and 15:00.
  const hours = [25, 28, 31, 34, 44];
  const plan = cryptoPlan([{ type: 'priceChange', value: 5, message: 'Jump' }]);

  it('counts days in the schedule time zone, first evaluated candle to last', () => {
    const newYork = backtest(plan, [market(withEvents(hours))], { timeZone: 'America/New_York' }).notifications;
    // Evaluated from 2024-01-14T01:00Z (13 Jan, 20:00 in New York) to 2024-01-16T23:00Z (16 Jan): 4 days.
    expect(newYork).toEqual({ total: 5, maxPerHour: 12, held: 0, stormNotices: 0, days: 4, perDay: 1.25, worstDay: { date: '2024-01-15', count: 3 }, floodDays: 0 });
    const utc = backtest(plan, [market(withEvents(hours))], { timeZone: 'UTC' }).notifications;
    expect(utc).toEqual({ total: 5, maxPerHour: 12, held: 0, stormNotices: 0, days: 3, perDay: 1.67, worstDay: { date: '2024-01-15', count: 5 }, floodDays: 0 });
    const kolkata = backtest(plan, [market(withEvents(hours))], { timeZone: 'Asia/Kolkata' }).notifications;
    // +05:30: 2024-01-15T20:00Z is 16 Jan 01:30 there, the others fall on 15 Jan; the last
    // candle, 2024-01-16T23:00Z, is 17 Jan 04:30.
    expect(kolkata).toMatchObject({ days: 4, worstDay: { date: '2024-01-15', count: 4 } });
  });

  it('sends one notification per candle time across markets', () => {
    const other = withEvents([25, 50]);
    const result = backtest(plan, [market(withEvents(hours)), market(other, 'BTC/USD on coinbase')]);
    // 25 is shared; 50 is the second market's own.
    expect(result.notifications.total).toBe(6);
    expect(rowOf(result, 'threshold-0')).toMatchObject({ notifications: 7 });
  });

  it('counts the days above the flood limit', () => {
    // 15-minute candles over two UTC days: 22 events on the first (flood), 20 on the second (not).
    const quarter = HOUR / 4;
    const closes = Array<number>(192).fill(100);
    const events = [...Array.from({ length: 22 }, (_, e) => 1 + e * 4), ...Array.from({ length: 20 }, (_, e) => 97 + e * 4)];
    for (const i of events) closes[i] = 110;
    const series = closes.map((close, i) => ({ time: start + i * quarter, open: close, high: close * 1.005, low: close * 0.995, close, volume: 1000 }));
    const result = backtest(plan, [{ ...market(series), timeframe: '15m' }]);
    expect(result.notifications).toEqual({ total: 42, maxPerHour: 12, held: 0, stormNotices: 0, days: 2, perDay: 21, worstDay: { date: '2024-01-14', count: 22 }, floodDays: 1 });
  });
});

describe('stock signals, markets and limits', () => {
  it('RSI extreme points down when overbought and the crossover points up', () => {
    const closes = [...Array<number>(30).fill(100).map((c, i) => c + (i % 2)), 90, 130];
    const plan = planOf(stockTemplate, { movingAveragePeriod: 5, rsiThreshold: 70, includeVolume: false });
    const m = okMarket(backtest(plan, [{ ...market(candles(closes), 'AAPL'), source: 'yahoo', symbol: 'AAPL' }]));
    const last = m.firings.filter((f) => f.time === 31 * HOUR);
    expect(last.map((f) => [f.key, f.direction])).toEqual([
      ['RSI extreme', 'down'],
      ['Moving average crossover', 'up'],
    ]);
  });

  it('lists the latest firings only, and counts all of them', () => {
    // A steady rise: RSI 100 on every candle from 14 on.
    const closes = Array.from({ length: 1200 }, (_, i) => 100 + i);
    const plan = planOf(stockTemplate, { includeVolume: false, movingAveragePeriod: 5 });
    const m = okMarket(backtest(plan, [{ ...market(candles(closes), 'AAPL'), source: 'yahoo', symbol: 'AAPL' }]));
    const rsi = rowOf(m, 'RSI extreme');
    const all = m.firings.length + m.firingsOmitted;
    expect(rsi.fired).toBe(1200 - 14);
    expect(m.firings).toHaveLength(BACKTEST_FIRINGS_LISTED);
    expect(m.firings.at(-1)!.time).toBe(1199 * HOUR);
    expect(m.firings.map((f) => f.time)).toEqual([...m.firings.map((f) => f.time)].sort((a, b) => a - b));
    expect(all).toBe(rsi.fired + rowOf(m, 'Moving average crossover').fired);
    expect(m.chart.markers).toHaveLength(BACKTEST_FIRINGS_LISTED);
    // Every firing's statistics count, listed or not: all but the last 1, 5 and 20 have a later close.
    expect(rsi.forward.map((f) => f.count)).toEqual([rsi.fired - 1, rsi.fired - 5, rsi.fired - 20]);
  });

  it('evaluates the last N candles after the warm-up', () => {
    const closes = Array.from({ length: 300 }, (_, i) => 100 + Math.sin(i / 3) * 5);
    const m = okMarket(backtest(cryptoPlan([]), [market(candles(closes))], { candles: 100 }));
    expect(m).toMatchObject({ evaluated: 100, from: new Date(200 * HOUR).toISOString() });
    expect(m.chart.candles[0]!.time).toBe(200 * HOUR);
  });

  it('passes failed markets through, fails one with too few candles, and lists the on-chain rules as not tested', () => {
    const failed: Extract<TBacktestMarket, { ok: false }> = { ok: false, label: 'ETH/USDT on kraken', symbol: 'ETH/USDT', source: 'kraken', simulated: false, failure: 'rate-limited', error: 'x' };
    const plan = planOf(cryptoTemplate, { includeOnChainMetrics: true, walletTracking: true }, [{ type: 'priceChange', value: 5, message: 'M' }]);
    const result = backtest(plan, [failed, market(candles([100]))]);
    expect(result.markets[0]).toEqual(failed);
    expect(result.markets[1]).toMatchObject({ ok: false, failure: 'too-few-candles', error: 'The data provider sent 1 candle; the rules need at least 2.' });
    expect(result.notTested).toEqual([
      { name: 'Whale transaction', reason: NOT_TESTED_REASON },
      { name: 'Wallet tracking', reason: NOT_TESTED_REASON },
    ]);
    expect(result.summary.map((r) => [r.key, r.fired, r.notifications])).toEqual([
      ['Price change', 0, null],
      ['Volatility spike', 0, null],
      ['Volume surge', 0, null],
      ['threshold-0', 0, 0],
    ]);
    expect(result.notifications).toEqual({ total: 0, maxPerHour: 12, held: 0, stormNotices: 0, days: 0, perDay: 0, worstDay: null, floodDays: 0 });
  });

  it('says so when any market is simulated', () => {
    const result = backtest(cryptoPlan([]), [{ ...market(candles([100, 101, 102])), simulated: true }]);
    expect(result.simulated).toBe(true);
  });
});

describe("the owner's conditions on history (issue 30)", () => {
  let ids = 0;
  const condition = (clauses: TClause[], trigger: TTrigger, name?: string): TCondition =>
    ZCondition.parse({ id: `00000000-0000-4000-8000-${String(++ids).padStart(12, '0')}`, ...(name ? { name } : {}), when: { kind: 'group', join: 'all', clauses }, trigger });
  const close = { indicator: 'close' } as const;
  const level = { indicator: 'number', value: 105 } as const;
  // 30 hours at 100, 5 at 110, 5 at 100, 5 at 110: above 105 on candles 30-34 and 40-44.
  const series = candles([...Array(30).fill(100), ...Array(5).fill(110), ...Array(5).fill(100), ...Array(5).fill(110)]);

  it('firings, notifications after each trigger and cooldown, forward returns, markers and the notifications count', () => {
    const crosses = condition([{ kind: 'clause', left: close, operator: 'crosses-above', right: level }], { mode: 'once-per-close' }, 'Breakout');
    const once = condition([{ kind: 'clause', left: close, operator: 'above', right: level }], { mode: 'once' });
    // A cooldown of 3 hours, decided at each candle's close: notified at 30 (closes 31:00), held at
    // 31 and 32 (32:00, 33:00 are within 3 h), notified at 33 (34:00 = 31:00 + 3 h), then 40 and 43.
    const cooled = condition([{ kind: 'clause', left: close, operator: 'above', right: level }], { mode: 'once-per-candle', cooldownMinutes: 180 });
    const result = backtest(cryptoPlan([]), [market(series)], { conditions: [crosses, once, cooled] });
    const m = okMarket(result);
    expect(rowOf(m, `condition-${crosses.id}`)).toMatchObject({ kind: 'condition', label: 'Breakout', fired: 2, notifications: 2 });
    expect(rowOf(m, `condition-${once.id}`)).toMatchObject({ kind: 'condition', label: 'close is above 105', fired: 10, notifications: 1 });
    expect(rowOf(m, `condition-${cooled.id}`)).toMatchObject({ fired: 10, notifications: 4 });
    const cooledFirings = m.firings.filter((f) => f.key === `condition-${cooled.id}`);
    expect(cooledFirings.filter((f) => f.notified).map((f) => f.time / HOUR)).toEqual([30, 33, 40, 43]);
    // Forward returns after 1, 5, 20 candles from the crossing at 30 (110): 110, 100, past the end (44 is the last).
    const crossing = m.firings.find((f) => f.key === `condition-${crosses.id}`)!;
    expect(crossing).toMatchObject({ time: 30 * HOUR, price: 110, direction: 'up', notified: true, detail: 'close crosses above 105: close 110 (before 100)' });
    expect(crossing.forward).toEqual([0, expect.closeTo(-9.0909, 3), null]);
    expect(rowOf(m, `condition-${crosses.id}`).forward[0]).toMatchObject({ horizon: 1, count: 2, average: 0 });
    // Markers carry the condition's title.
    expect(m.chart.markers.filter((k) => k.rule === 'Breakout').map((k) => k.time / HOUR)).toEqual([30, 40]);
    // One notification per candle that notified anything: 30, 33, 40, 43.
    expect(result.notifications.total).toBe(4);
    expect(rowOf(result, `condition-${once.id}`)).toMatchObject({ fired: 10, notifications: 1 });
  });

  it("'Only once' disarms the condition on every market, as live: the first run it is met in notifies, on each market met in it", () => {
    const once = condition([{ kind: 'clause', left: close, operator: 'above', right: level }], { mode: 'once' });
    // Above 105 on BTC from candle 5, on ETH from candle 3, on SOL from candle 3 too.
    const btc = candles([...Array(5).fill(100), ...Array(5).fill(110)]);
    const eth = candles([...Array(3).fill(100), ...Array(7).fill(110)]);
    const result = backtest(cryptoPlan([]), [market(btc), market(eth, 'ETH/USDT on binance'), market(eth, 'SOL/USDT on binance')], { conditions: [once] });
    expect([0, 1, 2].map((k) => rowOf(okMarket(result, k), `condition-${once.id}`))).toMatchObject([
      { fired: 5, notifications: 0 },
      { fired: 7, notifications: 1 },
      { fired: 7, notifications: 1 },
    ]);
    expect(okMarket(result, 1).firings.filter((f) => f.notified).map((f) => f.time / HOUR)).toEqual([3]);
    // One run notified (both markets' candles at 3:00 are one run).
    expect(result.notifications.total).toBe(1);
  });

  it("'once' on markets met in the same run notifies each; a condition's flood counts toward the day", () => {
    const always = condition([{ kind: 'clause', left: close, operator: 'above', right: { indicator: 'number', value: 0 } }], { mode: 'once-per-close' });
    const once = condition([{ kind: 'clause', left: close, operator: 'above', right: { indicator: 'number', value: 0 } }], { mode: 'once' });
    const day = candles(Array(48).fill(100));
    const result = backtest(cryptoPlan([]), [market(day), market(day, 'ETH/USDT on binance')], { conditions: [always, once], maxPerHour: 1000, candles: 48 });
    expect(rowOf(result, `condition-${once.id}`)).toMatchObject({ notifications: 2 });
    // A run needs two candles, so candles 1..47 of each market are evaluated.
    expect(rowOf(result, `condition-${always.id}`)).toMatchObject({ fired: 94, notifications: 94 });
    // One notification per candle (both markets' runs are one run): 23 and 24 a day, over the flood line.
    expect(result.notifications).toMatchObject({ total: 47, days: 2, floodDays: 2, worstDay: { date: '1970-01-02', count: 24 } });
  });

  it('an expired condition fires on history but notifies only before its expiry', () => {
    const expiring = condition([{ kind: 'clause', left: close, operator: 'above', right: level }], { mode: 'once-per-close', expiresAt: new Date(33 * HOUR).toISOString() });
    const m = okMarket(backtest(cryptoPlan([]), [market(series)], { conditions: [expiring] }));
    // Candles 30, 31 close at 31:00 and 32:00 (before 33:00); 32 closes at 33:00, expired.
    expect(m.firings.filter((f) => f.notified).map((f) => f.time / HOUR)).toEqual([30, 31]);
    expect(rowOf(m, `condition-${expiring.id}`)).toMatchObject({ fired: 10, notifications: 2 });
  });

  it('a longer timeframe counts from the agent candle on which it closes', () => {
    // Hourly candles over three days from 00:00; daily candles closing at 100, 120, 90.
    const hours = candles(Array(72).fill(110));
    const days: TCandle[] = [100, 120, 90].map((c, d) => ({ time: d * 24 * HOUR, open: c, high: c, low: c, close: c, volume: 1 }));
    const daily = condition([{ kind: 'clause', left: close, operator: 'above', right: { indicator: 'close', timeframe: '1d' } }], { mode: 'once-per-close' });
    const input = { ...market(hours), longer: new Map<TCandleTimeframe, TCandle[]>([['1d', days]]) };
    const m = okMarket(backtest(cryptoPlan([]), [input], { conditions: [daily] }));
    // Day 0 counts from 23:00 (index 23, closing at 24:00): 110 > 100 until index 46; day 1 (120)
    // counts from index 47: 110 < 120 until index 70; day 2 (90) from 71.
    const fired = m.firings.filter((f) => f.key === `condition-${daily.id}`).map((f) => f.time / HOUR);
    expect(fired).toEqual([...Array.from({ length: 24 }, (_, k) => 23 + k), 71]);
  });
});
