import { describe, expect, it } from 'vitest';
import { AGENT_TEMPLATES, defaultAgentConfig, type TAgentConfig } from '../../../contracts/agents.ts';
import { THRESHOLD_TYPES } from '../../../contracts/alert-thresholds.ts';
import { ZBacktestResult } from '../../../contracts/backtest.ts';
import { ZCondition, type TCondition } from '../../../contracts/conditions.ts';
import { TIMEFRAME_MS, type TCandle, type TCandleTimeframe } from '../../../contracts/market.ts';
import { aggregateCandles } from '../../test/aggregate-candles.ts';
import { prepareConditions } from '../conditions/engine.ts';
import { conditionStatus, decideTrigger, INITIAL_TRIGGER_STATE } from '../conditions/trigger.ts';
import { mulberry32 } from '../../../tests/support/seeded-random.ts';
import { evaluateMarket, outcomeAt, prepareMarket, thresholdValueAt, type ThresholdCondition } from '../runtime/evaluate.ts';
import { planRun, type RunPlan } from '../runtime/run-plan.ts';
import { runBacktest } from './backtest-engine.ts';

/**
 * Issue 16 item 2: on random series and random plans, each candle's outcome in a test on history
 * is what a live run ending at that candle records (evaluateMarket on the series cut there), and
 * the alerts it counts as notified are those the live runs' alert states would have notified.
 */

const MARKET = 'BTC/USDT on binance';
const INDICATORS = ['SMA', 'EMA', 'RSI', 'MACD', 'Bollinger Bands', 'Stochastic Oscillator'];

type Rand = () => number;
const int = (rand: Rand, min: number, max: number) => min + Math.floor(rand() * (max - min + 1));
const tenth = (rand: Rand, min: number, max: number) => int(rand, min * 10, max * 10) / 10;

/** A plan of either template with random parameters, every alert type, and one type twice. */
function randomPlan(rand: Rand, stock: boolean): RunPlan {
  const template = AGENT_TEMPLATES[stock ? 0 : 1]!;
  const defaults = defaultAgentConfig(template);
  const parameters: TAgentConfig['parameters'] = stock
    ? {
        indicators: INDICATORS.filter((name) => name === 'RSI' || rand() < 0.6),
        movingAveragePeriod: int(rand, 5, 40),
        rsiThreshold: int(rand, 50, 90),
        includeVolume: rand() < 0.7,
      }
    : { priceChangeThreshold: tenth(rand, 0.1, 3), volatilityThreshold: tenth(rand, 1, 3), includeOnChainMetrics: rand() < 0.5, walletTracking: rand() < 0.5 };
  const valueOf = (type: (typeof THRESHOLD_TYPES)[number]) => (type === 'priceChange' || type === 'volatilityAlert' ? tenth(rand, 0.1, 3) : int(rand, 100, 250));
  const types = [...THRESHOLD_TYPES, THRESHOLD_TYPES[int(rand, 0, 3)]!].sort(() => rand() - 0.5);
  // Each message names its threshold, so a live condition can be matched to its row.
  const thresholds = types.map((type, k) => ({ type, value: valueOf(type), message: `alert ${k}` }));
  return planRun(template.id, { ...defaults, notifications: { ...defaults.notifications, thresholds }, parameters: { ...defaults.parameters, ...parameters } });
}

/** A random walk with flat stretches (no move, no range), zero-volume stretches, jumps and volume spikes. */
function randomSeries(rand: Rand, length: number): TCandle[] {
  const out: TCandle[] = [];
  let price = 10 ** int(rand, -2, 4);
  // Some series start flat: RSI stays undefined until the price first moves.
  let flat = rand() < 0.3 ? int(rand, 15, 40) : 0;
  let quiet = 0;
  for (let i = 0; i < length; i++) {
    if (flat === 0 && rand() < 0.04) flat = int(rand, 2, 30);
    if (quiet === 0 && rand() < 0.03) quiet = int(rand, 1, 25);
    const still = flat > 0;
    if (!still) price *= rand() < 0.06 ? 1 + (rand() - 0.5) * 0.2 : 1 + (rand() - 0.5) * 0.02;
    const spread = still ? 0 : price * rand() * 0.03;
    const volume = quiet > 0 ? 0 : rand() < 0.05 ? int(rand, 3000, 9000) : int(rand, 500, 1500);
    out.push({ time: Date.UTC(2024, 0, 1) + i * 3_600_000, open: price, high: price + spread * rand(), low: price - spread * rand(), close: price, volume });
    flat = Math.max(0, flat - 1);
    quiet = Math.max(0, quiet - 1);
  }
  return out;
}

/** Which threshold a live condition belongs to, from its message ('alert 3 (...)'). */
const thresholdIndex = (condition: ThresholdCondition) => Number(/^alert (\d+) /.exec(condition.message)![1]);

/**
 * The notified alerts of live runs, one run per candle, written as run-executor's raiseAlerts and
 * the notifications' applyAlerts keep the alert states: conditions that fire or are marked,
 * one state per (market, type) decided by all of that type's conditions: it starts when any fires
 * (each firing one is notified) and clears when none does.
 */
function liveNotified(runs: ThresholdCondition[][]): Array<Set<number>> {
  const active = new Set<string>();
  return runs.map((conditions) => {
    const started = new Set<number>();
    const passed = conditions.filter((c) => c.firing || active.has(`${MARKET}|${c.thresholdType}`));
    for (const type of new Set(passed.map((c) => c.thresholdType))) {
      const key = `${MARKET}|${type}`;
      const firing = passed.filter((c) => c.thresholdType === type && c.firing);
      if (firing.length === 0) active.delete(key);
      else if (!active.has(key)) {
        active.add(key);
        for (const c of firing) started.add(thresholdIndex(c));
      }
    }
    return started;
  });
}

describe('a test on history evaluates each candle as the live run ending there', () => {
  const rand = mulberry32(1616);
  const cases = Array.from({ length: 24 }, (_, c) => ({ plan: randomPlan(rand, c % 2 === 0), candles: randomSeries(rand, c % 6 === 5 ? int(rand, 2, 30) : int(rand, 60, 220)) }));

  it.each(cases.map((c, index) => [index, c] as const))('case %i', (_, { plan, candles }) => {
    const prepared = prepareMarket(plan, candles);
    const result = runBacktest({ templateId: 'x', plan, candles: candles.length, timeZone: 'Europe/Paris', channels: { email: true, inApp: true }, markets: [{ label: MARKET, symbol: 'BTC/USDT', source: 'binance', timeframe: '1h', simulated: false, candles, history: { requested: candles.length, received: candles.length, cached: 0, short: null } }] });
    expect(ZBacktestResult.parse(result)).toEqual(result);
    const m = result.markets[0]!;
    if (!m.ok) throw new Error(m.error);
    expect(m.firingsOmitted).toBe(0);

    const runs: ThresholdCondition[][] = [];
    let firingsSeen = 0;
    for (let i = 1; i < candles.length; i++) {
      const live = evaluateMarket({ plan, market: MARKET, candles: candles.slice(0, i + 1), onChain: { configured: false } });
      const marketRules = live.rules.slice(0, prepared.rules.length);
      // The whole outcome (statuses, values, details, alert texts) from the series prepared once.
      expect(outcomeAt(prepared, i, MARKET)).toEqual({ rules: marketRules, thresholds: live.thresholds });
      // The decisions the test on history takes without strings.
      expect(prepared.rules.map((r) => r.fires(i))).toEqual(marketRules.map((r) => (r.status === 'evaluated' ? r.fired : null)));
      const measured = new Map(live.thresholds.map((t) => [thresholdIndex(t), t]));
      plan.thresholds.forEach((t, k) => {
        const value = thresholdValueAt(prepared, k, i);
        expect(value === null).toBe(!measured.has(k));
        if (value !== null) expect(value > t.value).toBe(measured.get(k)!.firing);
      });
      runs.push(live.thresholds);

      // What the result lists at this candle: the live run's fired signals and firing alerts.
      const listed = m.firings.filter((f) => f.time === candles[i]!.time).map((f) => [f.key, f.detail, f.price]);
      const expected = [
        ...marketRules.filter((r) => r.fired).map((r) => [r.name, r.detail, candles[i]!.close]),
        ...live.thresholds.filter((t) => t.firing).map((t) => [`threshold-${thresholdIndex(t)}`, t.message, candles[i]!.close]),
      ].sort((a, b) => rowOrder(a[0] as string) - rowOrder(b[0] as string));
      expect(listed).toEqual(expected);
      firingsSeen += listed.length;
    }
    expect(firingsSeen).toBe(m.firings.length);

    // Notified: what the live alert states would have notified, run after run.
    const notified = liveNotified(runs);
    const ours = candles.slice(1).map((c) => new Set(m.firings.filter((f) => f.time === c.time && f.notified).map((f) => Number(f.key.replace('threshold-', '')))));
    expect(ours).toEqual(notified);
    expect(result.notifications.total).toBe(notified.filter((s) => s.size > 0).length);

    function rowOrder(key: string): number {
      const rule = prepared.rules.findIndex((r) => r.name === key);
      return rule >= 0 ? rule : prepared.rules.length + Number(key.replace('threshold-', ''));
    }
  });

  it('the random cases fire every signal and alert type, and notify', () => {
    // Without firings the comparison above would prove little: the generated data must make
    // each rule and each alert type fire somewhere, and some alert stay firing.
    const fired = new Set<string>();
    let repeated = 0;
    let unmeasured = 0;
    let rsiUndefined = 0;
    for (const { plan, candles } of cases) {
      // Flat stretches leave RSI undefined after its warm-up; zero volumes leave volume alerts unmeasured.
      const prepared = prepareMarket(plan, candles);
      const rsiRule = prepared.rules.find((r) => r.name === 'RSI extreme');
      for (let i = 30; i < candles.length; i++) {
        if (rsiRule && rsiRule.fires(i) === null) rsiUndefined++;
        if (plan.thresholds.some((_, k) => thresholdValueAt(prepared, k, i) === null)) unmeasured++;
      }
      const result = runBacktest({ templateId: 'x', plan, candles: candles.length, timeZone: 'UTC', channels: { email: true, inApp: true }, markets: [{ label: MARKET, symbol: 'BTC/USDT', source: 'binance', timeframe: '1h', simulated: false, candles, history: { requested: 0, received: 0, cached: 0, short: null } }] });
      const m = result.markets[0]!;
      if (!m.ok) continue;
      for (const row of m.rows) if (row.fired > 0) fired.add(row.kind === 'signal' ? row.key : plan.thresholds[Number(row.key.replace('threshold-', ''))]!.type);
      repeated += m.firings.filter((f) => f.key.startsWith('threshold-') && !f.notified).length;
    }
    expect([...fired].sort()).toEqual(['Moving average crossover', 'Price change', 'RSI extreme', 'Volatility spike', 'Volume spike', 'Volume surge', ...THRESHOLD_TYPES].sort());
    expect(repeated).toBeGreaterThan(0);
    expect(rsiUndefined).toBeGreaterThan(0);
    expect(unmeasured).toBeGreaterThan(0);
  });
});

/** Conditions of every operator family with random periods, two of them reading the daily candles too. */
function randomConditions(rand: Rand): TCondition[] {
  const p = () => int(rand, 2, 8);
  const close = { indicator: 'close' } as const;
  const list = [
    { when: [{ kind: 'clause', left: close, operator: 'crosses-above', right: { indicator: 'sma', period: p() } }], trigger: { mode: 'once-per-close' } },
    {
      when: [{ kind: 'group', join: 'any', clauses: [{ kind: 'clause', left: { indicator: 'rsi', period: p() }, operator: 'below', right: { indicator: 'number', value: 40 } }, { kind: 'clause', left: { indicator: 'rsi', period: p() }, operator: 'above', right: { indicator: 'number', value: 60 } }] }],
      trigger: { mode: 'once-per-candle', cooldownMinutes: 60 * int(rand, 1, 6) },
    },
    { when: [{ kind: 'clause', left: close, operator: 'crosses', right: { indicator: 'ema', period: 2, timeframe: '1d' } }], trigger: { mode: 'once-per-close', cooldownMinutes: 120 } },
    { when: [{ kind: 'clause', left: close, operator: 'rising', candles: int(rand, 1, 3) }], trigger: { mode: 'once' } },
    {
      when: [
        { kind: 'clause', left: { indicator: 'volume' }, operator: 'rises-by', percent: 20, candles: int(rand, 1, 4) },
        { kind: 'clause', left: close, operator: 'between', lower: { indicator: 'bollinger', band: 'lower', period: p(), k: 2 }, upper: { indicator: 'vwap' } },
      ],
      trigger: { mode: 'once-per-close' },
    },
    { when: [{ kind: 'clause', left: { indicator: 'atr', period: p(), timeframe: '1d' }, operator: 'falling', candles: 1 }, { kind: 'clause', left: { indicator: 'macd', line: 'histogram', fast: 2, slow: 4, signal: 2 }, operator: 'above', right: { indicator: 'number', value: 0 } }], trigger: { mode: 'once-per-close' } },
  ];
  return list.map((c, k) => ZCondition.parse({ id: `00000000-0000-4000-8000-00000000000${k}`, when: { kind: 'group', join: 'all', clauses: c.when }, trigger: c.trigger }));
}

describe("the owner's conditions on history are the live runs' (issue 30)", () => {
  const rand = mulberry32(3030);
  const cases = Array.from({ length: 8 }, (_, c) => ({ plan: randomPlan(rand, c % 2 === 0), conditions: randomConditions(rand), candles: randomSeries(rand, int(rand, 100, 240)) }));

  it.each(cases.map((c, index) => [index, c] as const))('case %i', (_, { plan, conditions, candles }) => {
    const agent: TCandleTimeframe = '1h';
    const result = runBacktest({
      templateId: 'x',
      plan,
      candles: candles.length,
      timeZone: 'Europe/Paris',
      channels: { email: true, inApp: true },
      maxPerHour: 1000,
      conditions,
      markets: [{ label: MARKET, symbol: 'BTC/USDT', source: 'binance', timeframe: agent, simulated: false, candles, longer: new Map([['1d', aggregateCandles(candles, '1d')]]), history: { requested: 0, received: 0, cached: 0, short: null } }],
    });
    expect(ZBacktestResult.parse(result)).toEqual(result);
    const m = result.markets[0]!;
    if (!m.ok) throw new Error(m.error);

    // Live: one run per candle on what it had seen (the day's candle still forming), the trigger states carried over.
    const states = conditions.map(() => INITIAL_TRIGGER_STATE);
    let met = 0;
    let notified = 0;
    for (let i = 1; i < candles.length; i++) {
      const seen = candles.slice(0, i + 1);
      const live = prepareConditions(conditions, agent, new Map([[agent, seen], ['1d', aggregateCandles(seen, '1d')]]));
      const expected: Array<[string, boolean]> = [];
      conditions.forEach((condition, c) => {
        if (live.met(c, i) !== true) return;
        const now = candles[i]!.time + TIMEFRAME_MS[agent];
        let delivered = false;
        if (conditionStatus(condition.trigger, states[c]!, now) === 'active') {
          const decided = decideTrigger(condition.trigger, states[c]!, candles[i]!.time, now);
          states[c] = decided.state;
          delivered = decided.delivery === 'notified';
        }
        expected.push([`condition-${condition.id}`, delivered]);
        met++;
        if (delivered) notified++;
      });
      const listed = m.firings.filter((f) => f.time === candles[i]!.time && f.key.startsWith('condition-')).map((f): [string, boolean] => [f.key, f.notified]);
      expect(listed).toEqual(expected);
    }
    // The generated data must make conditions fire and triggers hold some back, or this proves little.
    expect(met).toBeGreaterThan(0);
    expect(m.rows.filter((r) => r.kind === 'condition').reduce((sum, r) => sum + r.fired, 0)).toBe(met);
    expect(m.rows.filter((r) => r.kind === 'condition').reduce((sum, r) => sum + (r.notifications ?? 0), 0)).toBe(notified);
  });

  it('the cases meet every condition somewhere and hold some notifications back', () => {
    const fired = new Set<string>();
    let held = 0;
    for (const { plan, conditions, candles } of cases) {
      const result = runBacktest({ templateId: 'x', plan, candles: candles.length, timeZone: 'UTC', channels: { email: true, inApp: true }, conditions, markets: [{ label: MARKET, symbol: 'BTC/USDT', source: 'binance', timeframe: '1h', simulated: false, candles, longer: new Map([['1d', aggregateCandles(candles, '1d')]]), history: { requested: 0, received: 0, cached: 0, short: null } }] });
      const m = result.markets[0]!;
      if (!m.ok) continue;
      for (const row of m.rows) if (row.kind === 'condition' && row.fired > 0) fired.add(row.key);
      held += m.rows.filter((r) => r.kind === 'condition').reduce((sum, r) => sum + r.fired - (r.notifications ?? 0), 0);
    }
    expect(fired.size).toBe(6);
    expect(held).toBeGreaterThan(0);
  });
});
