import { AGENT_TEMPLATES, defaultAgentConfig } from '../contracts/agents.ts';
import { ZCondition, type TCondition } from '../contracts/conditions.ts';
import { TIMEFRAME_MS, type TCandle, type TCandleTimeframe } from '../contracts/market.ts';
import { historyNeeded, longerHistoryNeeded, runBacktest, type BacktestMarketInput } from '../server/modules/backtest/backtest-engine.ts';
import { conditionCandlesNeeded, prepareConditions } from '../server/modules/conditions/engine.ts';
import { planRun } from '../server/modules/runtime/run-plan.ts';
import { aggregateCandles } from '../server/test/aggregate-candles.ts';
import { mulberry32 } from '../tests/support/seeded-random.ts';
import type { Benchmark, BenchResult } from './types.ts';
import { timeRuns } from './lib.ts';

const AGENT: TCandleTimeframe = '1h';
const LONGER: TCandleTimeframe = '1d';
const LIVE_MARKETS = 100;
const HISTORY_MARKETS = 20;
const HISTORY_CANDLES = 5000;
const LIVE_TARGET_MS = 20;
const HISTORY_TARGET_MS = 250;
const TARGET_RATIO = 50;
/** The naive replay is measured on every SAMPLE_STEP-th candle (every QUICK_STEP-th with --quick) and scaled up. */
const SAMPLE_STEP = 20;
const QUICK_STEP = 100;

/** Five conditions over two timeframes, sharing some sides as owners' conditions do (RSI, the daily EMA). */
function benchConditions(): TCondition[] {
  const close = { indicator: 'close' } as const;
  const rsi = { indicator: 'rsi', period: 14 } as const;
  const n = (value: number) => ({ indicator: 'number', value }) as const;
  const list = [
    [{ kind: 'clause', left: rsi, operator: 'crosses-below', right: n(30) }],
    [
      { kind: 'clause', left: close, operator: 'above', right: { indicator: 'ema', period: 200, timeframe: LONGER } },
      { kind: 'clause', left: rsi, operator: 'below', right: n(40) },
    ],
    [{ kind: 'clause', left: { indicator: 'macd', line: 'macd', fast: 12, slow: 26, signal: 9 }, operator: 'crosses-above', right: { indicator: 'macd', line: 'signal', fast: 12, slow: 26, signal: 9 } }],
    [
      {
        kind: 'group',
        join: 'any',
        clauses: [
          { kind: 'clause', left: close, operator: 'above', right: { indicator: 'bollinger', band: 'upper', period: 20, k: 2 } },
          { kind: 'clause', left: { indicator: 'volume' }, operator: 'rises-by', percent: 100, candles: 5 },
        ],
      },
    ],
    [
      { kind: 'clause', left: close, operator: 'crosses-above', right: { indicator: 'vwap' } },
      { kind: 'clause', left: { indicator: 'sma', period: 50, timeframe: LONGER }, operator: 'rising', candles: 3 },
      { kind: 'clause', left: { indicator: 'close', timeframe: LONGER }, operator: 'above', right: { indicator: 'ema', period: 200, timeframe: LONGER } },
    ],
  ];
  return list.map((clauses, k) =>
    ZCondition.parse({ id: `00000000-0000-4000-8000-00000000000${k}`, when: { kind: 'group', join: 'all', clauses }, trigger: { mode: 'once-per-close', cooldownMinutes: 60 * k } }),
  );
}

/** A seeded hourly random walk from a UTC midnight: about 0.7% an hour, volume with bursts. */
function hourlySeries(length: number, seed: number): TCandle[] {
  const rand = mulberry32(seed);
  const start = Date.UTC(2024, 0, 1);
  const out: TCandle[] = [];
  let close = 50 + rand() * 200;
  for (let i = 0; i < length; i++) {
    const open = close;
    close = Math.max(1, open * (1 + (rand() - 0.5) * 0.014));
    const high = Math.max(open, close) * (1 + rand() * 0.004);
    const low = Math.min(open, close) * (1 - rand() * 0.004);
    const volume = Math.round(1000 * (0.5 + rand()) * (rand() < 0.05 ? 4 : 1));
    out.push({ time: start + i * TIMEFRAME_MS[AGENT], open, high, low, close, volume });
  }
  return out;
}

/** Hourly candles `hours` long and the daily candles from the same walk, the daily ones reaching `days` back before the first hour. */
function market(seed: number, hours: number, days: number): { hourly: TCandle[]; daily: TCandle[] } {
  const perDay = TIMEFRAME_MS[LONGER] / TIMEFRAME_MS[AGENT];
  const all = hourlySeries(days * perDay + hours, seed);
  return { hourly: all.slice(all.length - hours), daily: aggregateCandles(all, LONGER) };
}

/**
 * Conditions (issue 30). (a) A live run of a Custom Monitor: 100 markets x 5 conditions over two
 * timeframes, with the candles a live run fetches (conditionCandlesNeeded) in memory; ours
 * prepares each market's conditions together (every side once) and records the outcome of each
 * at the latest candle; the reference prepares each condition on its own. (b) Test on history:
 * 20 markets x 5,000 hourly candles x 5 conditions with runBacktest (the crypto template, whose
 * three signals come along); the reference is the naive replay, each candle's conditions
 * prepared again on the series cut as a live run at it would see it.
 */
const benchmark: Benchmark = {
  name: 'conditions',
  description: `Conditions: a live run of ${LIVE_MARKETS} markets x 5 conditions on two timeframes (vs each condition prepared on its own); a test on history of ${HISTORY_MARKETS} markets x ${HISTORY_CANDLES.toLocaleString('en')} candles x 5 conditions (vs the per-candle replay, sampled)`,
  async run({ quick, log }) {
    const conditions = benchConditions();
    const rows: BenchResult[] = [];

    // (a) A live run.
    const needed = conditionCandlesNeeded(conditions, AGENT);
    const liveHours = needed.get(AGENT)! + 1;
    const liveDays = needed.get(LONGER)! + 1;
    const live = Array.from({ length: LIVE_MARKETS }, (_, s) => {
      const m = market(7000 + s, liveHours, liveDays);
      return new Map<TCandleTimeframe, TCandle[]>([
        [AGENT, m.hourly],
        [LONGER, m.daily.slice(-liveDays)],
      ]);
    });
    const together = () => {
      let met = 0;
      for (const series of live) {
        const prepared = prepareConditions(conditions, AGENT, series);
        const last = prepared.candles.length - 1;
        for (let c = 0; c < conditions.length; c++) if (prepared.outcome(c, last).met) met++;
      }
      return met;
    };
    const alone = () => {
      let met = 0;
      for (const series of live) {
        for (const condition of conditions) {
          const prepared = prepareConditions([condition], AGENT, series);
          if (prepared.outcome(0, prepared.candles.length - 1).met) met++;
        }
      }
      return met;
    };
    const reps = quick ? 10 : 40;
    const ours = timeRuns(together, 5, reps);
    const reference = timeRuns(alone, 5, reps);
    log(`  live: ${liveHours} hourly and ${liveDays} daily candles per market; ours median ${ours.median.toFixed(2)} ms (best ${ours.best.toFixed(2)}), each condition alone ${reference.median.toFixed(2)} ms; met ${ours.result} (alone ${reference.result})`);
    rows.push({
      name: `conditions live ${LIVE_MARKETS}x5 time`,
      unit: 'ms',
      ours: ours.median,
      reference: reference.median,
      ratio: reference.median / ours.median,
      target: `< ${LIVE_TARGET_MS} ms`,
      met: ours.median < LIVE_TARGET_MS,
      ...(ours.result === reference.result ? {} : { note: 'the answers differ' }),
    });

    // (b) A test on history.
    const template = AGENT_TEMPLATES.find((t) => t.id === 'crypto-market-monitor')!;
    const defaults = defaultAgentConfig(template);
    const plan = planRun(template.id, { ...defaults, parameters: { ...defaults.parameters, timeframe: '1h', includeOnChainMetrics: false, walletTracking: false } });
    const hours = historyNeeded(plan, HISTORY_CANDLES, conditions, AGENT);
    const markets: BacktestMarketInput[] = Array.from({ length: HISTORY_MARKETS }, (_, s) => {
      // As the service asks: the period of the hourly candles in days, the one forming, the warm-up.
      const days = longerHistoryNeeded(conditions, AGENT, 0, hours * TIMEFRAME_MS[AGENT]).get(LONGER)!;
      const m = market(9000 + s, hours, days);
      return {
        label: `M${s}`,
        symbol: `M${s}`,
        source: 'binance',
        timeframe: AGENT,
        simulated: false,
        candles: m.hourly,
        longer: new Map([[LONGER, m.daily]]),
        history: { requested: hours, received: hours, cached: 0, short: null },
      };
    });
    const input = { templateId: template.id, plan, candles: HISTORY_CANDLES, timeZone: 'UTC', channels: { email: true, inApp: true }, conditions, markets };
    const history = timeRuns(() => runBacktest(input), 3, quick ? 5 : 15);
    const conditionRows = history.result.summary.filter((r) => r.kind === 'condition');
    log(`  history: ${hours.toLocaleString('en')} hourly candles per market with the warm-up; runBacktest median ${history.median.toFixed(1)} ms (best ${history.best.toFixed(1)})`);
    log(`  met: ${conditionRows.map((r) => `${r.fired} (${r.notifications} notified)`).join(', ')}`);
    rows.push({
      name: `conditions history ${HISTORY_MARKETS}x${HISTORY_CANDLES}x5 time`,
      unit: 'ms',
      ours: history.median,
      reference: null,
      ratio: null,
      target: `< ${HISTORY_TARGET_MS} ms`,
      met: history.median < HISTORY_TARGET_MS,
    });

    // The naive replay on every step-th candle of every market: each prepared again on what a
    // live run at it would have seen (its hourly candles so far, the daily ones opened by then).
    const step = quick ? QUICK_STEP : SAMPLE_STEP;
    const naive = timeRuns(
      () => {
        let met = 0;
        let candles = 0;
        for (const m of markets) {
          const daily = m.longer!.get(LONGER)!;
          for (let i = hours - HISTORY_CANDLES; i < hours; i += step) {
            const at = m.candles[i]!.time;
            const seen = new Map<TCandleTimeframe, readonly TCandle[]>([
              [AGENT, m.candles.slice(0, i + 1)],
              [LONGER, daily.filter((d) => d.time <= at)],
            ]);
            const prepared = prepareConditions(conditions, AGENT, seen);
            for (let c = 0; c < conditions.length; c++) if (prepared.met(c, i) === true) met++;
            candles++;
          }
        }
        return { met, candles };
      },
      0,
      1,
    );
    const naiveMs = (naive.median * HISTORY_MARKETS * HISTORY_CANDLES) / naive.result.candles;
    // The same candles counted on the prepared series, to check the two agree.
    let metSampled = 0;
    for (const m of markets) {
      const prepared = prepareConditions(conditions, AGENT, new Map([[AGENT, m.candles], [LONGER, m.longer!.get(LONGER)!]]));
      for (let i = hours - HISTORY_CANDLES; i < hours; i += step) for (let c = 0; c < conditions.length; c++) if (prepared.met(c, i) === true) metSampled++;
    }
    const candles = HISTORY_MARKETS * HISTORY_CANDLES;
    const oursRate = candles / (history.median / 1000);
    const naiveRate = candles / (naiveMs / 1000);
    log(`  naive replay: ${naive.median.toFixed(0)} ms for ${naive.result.candles.toLocaleString('en')} sampled candles (every ${step}th), ${(naiveMs / 1000).toFixed(1)} s estimated for all; met ${naive.result.met} the naive way, ${metSampled} prepared once`);
    rows.push({
      name: 'conditions history candles per second',
      unit: 'candles/s',
      ours: oursRate,
      reference: naiveRate,
      ratio: oursRate / naiveRate,
      target: `ratio >= ${TARGET_RATIO}`,
      met: oursRate / naiveRate >= TARGET_RATIO,
      note: `reference estimated from every ${step}th candle${naive.result.met === metSampled ? '' : `; answers differ: ${naive.result.met} vs ${metSampled}`}`,
    });
    return rows;
  },
};

export default benchmark;
