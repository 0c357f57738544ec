import type { TCryptoMonitorParameters, TThreshold } from '../../../contracts/agents.ts';
import { alertText, THRESHOLD_AVERAGE_WINDOW, THRESHOLD_DEFINITIONS, type TThresholdType } from '../../../contracts/alert-thresholds.ts';
import { formatCompact, formatNumber } from '../../../contracts/number-format.ts';
import type { TDirection } from '../../../contracts/backtest.ts';
import { MARKET_FAILURES, type TCandle, type TChartData, type TMarketFailure, type TRecentMoves, type TRuleOutcome } from '../../../contracts/market.ts';
import { bollinger, ema, macd, rsi, sma, stochastic } from '../market/indicators.ts';
import type { WhaleTransaction } from '../../integrations/onchain/onchain-source.ts';
import type { RunPlan } from './run-plan.ts';

/**
 * The templates' decision rules (SPEC section 9; 'signals' on screens) and the user's alert
 * thresholds ('alerts'), evaluated on one market's candles. Pure: the numbers that decided each
 * go into the run's result so a user can check them. Alerts are measured as
 * `contracts/alert-thresholds.ts` defines them; the signals' own measures, over the latest
 * candle n and the AVERAGE_WINDOW candles before it:
 * - percent change: close[n] / close[n-1] - 1, in %;
 * - volume vs average volume: volume[n] against the mean volume of the window;
 * - volatility: the candle's range (high - low) / close in %, against the window's mean range.
 *
 * One evaluation for live runs and tests on history (decision record 0035): `prepareMarket`
 * computes the indicators over the whole series once, and any candle is evaluated from them as
 * a run whose latest candle it is; `evaluateMarket` is that for a live run's last candle.
 */

/** The signals average over the same window as the volume alerts. */
export const AVERAGE_WINDOW = THRESHOLD_AVERAGE_WINDOW;
export const CHART_CANDLES = 60;
/** Candles below which no rule can say anything (a change needs two): a run fails with fewer. */
export const MIN_CANDLES = 2;
const RSI_PERIOD = 14;
const CRYPTO_MA_PERIOD = 20;
export const STOCK_VOLUME_FACTOR = 2;
export const CRYPTO_VOLUME_FACTOR = 1.5;

export type OnChainInput =
  | { configured: false }
  | { configured: true; ok: true; transactions: WhaleTransaction[] }
  /** `cause`: the provider's side, for the run's log line; only the kind's sentence is shown. */
  | { configured: true; ok: false; failure: TMarketFailure; cause: Record<string, unknown> };

/** `value` is the measured value and `limit` the configured one, both in the type's unit. */
export type ThresholdCondition = { thresholdType: TThresholdType; firing: boolean; value: number; limit: number; message: string };

export type MarketEvaluation = {
  indicators: Record<string, number | null>;
  rules: TRuleOutcome[];
  chart: TChartData;
  thresholds: ThresholdCondition[];
  recent: TRecentMoves;
};

/** How many candles a template needs for its indicators, averages and chart. */
export function candlesNeeded(plan: RunPlan): number {
  const period = plan.templateType === 'stock' ? plan.parameters.movingAveragePeriod : CRYPTO_MA_PERIOD;
  return Math.min(1000, Math.max(120, period + CHART_CANDLES + 40));
}

const finite = (value: number | undefined): number | null => (value !== undefined && Number.isFinite(value) ? value : null);
const round = (value: number, digits = 2) => Number(value.toFixed(digits));
const fmt = (value: number | null, digits = 2) => (value === null ? 'undefined' : value.toFixed(digits));

/** Per-candle series the rules read; computed once per market. */
class Series {
  readonly close: Float64Array;
  readonly volume: Float64Array;
  readonly range: Float64Array;
  readonly candles: readonly TCandle[];

  constructor(candles: readonly TCandle[]) {
    this.candles = candles;
    const n = candles.length;
    this.close = new Float64Array(n);
    this.volume = new Float64Array(n);
    this.range = new Float64Array(n);
    for (let i = 0; i < n; i++) {
      const c = candles[i]!;
      this.close[i] = c.close;
      this.volume[i] = c.volume;
      this.range[i] = c.close > 0 ? ((c.high - c.low) / c.close) * 100 : Number.NaN;
    }
  }

  percentChange(i: number): number | null {
    if (i < 1 || this.close[i - 1]! <= 0) return null;
    return (this.close[i]! / this.close[i - 1]! - 1) * 100;
  }

  /** The latest candle against the AVERAGE_WINDOW before it, as a run records it (docs/decisions/0044). */
  recent(i: number): TRecentMoves {
    const change = this.percentChange(i);
    let sizes: number | null = i > AVERAGE_WINDOW ? 0 : null;
    for (let j = i - AVERAGE_WINDOW; sizes !== null && j < i; j++) {
      const c = this.percentChange(j);
      sizes = c === null ? null : sizes + Math.abs(c);
    }
    const averageVolume = this.windowMean(this.volume, i);
    const range = finite(this.range[i]);
    const averageRange = this.windowMean(this.range, i);
    const rounded = (value: number | null) => (value === null || !Number.isFinite(value) ? null : round(value, 4));
    return {
      window: AVERAGE_WINDOW,
      changePercent: rounded(change),
      averageAbsChangePercent: rounded(sizes === null ? null : sizes / AVERAGE_WINDOW),
      volume: rounded(finite(this.volume[i])),
      averageVolume: rounded(averageVolume),
      rangePercent: rounded(range),
      averageRangePercent: rounded(averageRange),
    };
  }

  /** Mean of `values` over the AVERAGE_WINDOW candles before i (null when there are not enough). */
  windowMean(values: Float64Array, i: number): number | null {
    if (i < AVERAGE_WINDOW) return null;
    let sum = 0;
    for (let j = i - AVERAGE_WINDOW; j < i; j++) sum += values[j]!;
    const mean = sum / AVERAGE_WINDOW;
    return Number.isFinite(mean) ? mean : null;
  }
}

function outcome(name: string, fired: boolean | null, values: Record<string, number | null>, detail: string): TRuleOutcome {
  const rounded: Record<string, number | null> = {};
  for (const key in values) rounded[key] = values[key] === null ? null : round(values[key]!, 4);
  return fired === null
    ? { name, status: 'insufficient data', fired: false, values: rounded, detail }
    : { name, status: 'evaluated', fired, values: rounded, detail };
}

/**
 * One decision rule over a prepared series. `fires` is the decision alone, without a string, so a
 * test on history can ask it of every candle; `outcome` is what a run records, and takes its
 * answer from `fires`, so the two cannot disagree.
 */
export type MarketRule = {
  name: string;
  /** Whether the rule fires on candle i; null when it cannot decide there ('insufficient data'). */
  fires(i: number): boolean | null;
  outcome(i: number): TRuleOutcome;
  /** The way the rule expects the price to go when it fires on candle i, for rules that point one way. */
  expects?(i: number): TDirection;
};

/** volume[i] > factor x its window average. */
function volumeRule(s: Series, factor: number, name: string): MarketRule {
  const fires = (i: number) => {
    const average = s.windowMean(s.volume, i);
    return average === null || average <= 0 ? null : s.volume[i]! > factor * average;
  };
  return {
    name,
    fires,
    outcome(i) {
      const fired = fires(i);
      const volume = s.volume[i]!;
      const average = s.windowMean(s.volume, i);
      if (fired === null) return outcome(name, null, { volume, averageVolume: average, factor }, `not enough volume history (${AVERAGE_WINDOW} candles needed)`);
      return outcome(name, fired, { volume, averageVolume: average, factor }, `volume ${formatCompact(volume)} ${fired ? '>' : '<='} ${factor} x average ${formatCompact(average!)}`);
    },
  };
}

function rsiRule(rsiValues: Float64Array, threshold: number): MarketRule {
  const name = 'RSI extreme';
  const fires = (i: number) => {
    const value = rsiValues[i]!;
    return Number.isFinite(value) ? value > threshold || value < 100 - threshold : null;
  };
  return {
    name,
    fires,
    outcome(i) {
      const fired = fires(i);
      const value = finite(rsiValues[i]);
      if (fired === null || value === null) return outcome(name, null, { rsi: null, threshold }, 'RSI is undefined (too few candles, or no price movement)');
      const side = value > threshold ? `> ${threshold} (overbought)` : value < 100 - threshold ? `< ${100 - threshold} (oversold)` : `within ${100 - threshold}-${threshold}`;
      return outcome(name, fired, { rsi: value, threshold }, `RSI ${fmt(value)} ${side}`);
    },
    // Overbought expects a fall, oversold a rise.
    expects: (i) => (rsiValues[i]! > threshold ? 'down' : rsiValues[i]! < 100 - threshold ? 'up' : null),
  };
}

function crossoverRule(s: Series, ma: Float64Array, period: number): MarketRule {
  const name = 'Moving average crossover';
  const fires = (i: number) => {
    if (i < 1) return null;
    const previousClose = s.close[i - 1]!;
    const current = ma[i]!;
    const previous = ma[i - 1]!;
    if (!Number.isFinite(current) || !Number.isFinite(previous) || !Number.isFinite(previousClose)) return null;
    return previousClose <= previous && s.close[i]! > current;
  };
  return {
    name,
    fires,
    outcome(i) {
      const fired = fires(i);
      const [close, previousClose, current, previous] = [s.close[i]!, finite(s.close[i - 1]), finite(ma[i]), finite(ma[i - 1])];
      if (fired === null) {
        return outcome(name, null, { close, ma: current, previousClose, previousMa: previous, period }, `needs ${period + 1} candles for the ${period}-candle average`);
      }
      const detail = fired
        ? `close ${fmt(close)} crossed above SMA ${period} ${fmt(current)} (previous ${fmt(previousClose)} <= ${fmt(previous)})`
        : `no upward cross: close ${fmt(close)} vs SMA ${period} ${fmt(current)}, previous ${fmt(previousClose)} vs ${fmt(previous)}`;
      return outcome(name, fired, { close, ma: current, previousClose, previousMa: previous, period }, detail);
    },
    expects: () => 'up',
  };
}

function priceChangeRule(s: Series, threshold: number): MarketRule {
  const name = 'Price change';
  const fires = (i: number) => {
    const change = s.percentChange(i);
    return change === null ? null : Math.abs(change) > threshold;
  };
  return {
    name,
    fires,
    outcome(i) {
      const fired = fires(i);
      const change = s.percentChange(i);
      if (fired === null || change === null) return outcome(name, null, { percentChange: null, threshold }, 'needs two candles');
      return outcome(name, fired, { percentChange: change, threshold }, `change ${change >= 0 ? '+' : ''}${fmt(change)}% ${fired ? '>' : '<='} ${threshold}% in size`);
    },
  };
}

function volatilityRule(s: Series, factor: number): MarketRule {
  const name = 'Volatility spike';
  const fires = (i: number) => {
    const volatility = s.range[i]!;
    if (!Number.isFinite(volatility)) return null;
    const average = s.windowMean(s.range, i);
    return average === null || average <= 0 ? null : volatility > average * factor;
  };
  return {
    name,
    fires,
    outcome(i) {
      const fired = fires(i);
      const volatility = finite(s.range[i]);
      const average = s.windowMean(s.range, i);
      if (fired === null) return outcome(name, null, { volatility, averageVolatility: average, factor }, `not enough history (${AVERAGE_WINDOW} candles needed)`);
      return outcome(name, fired, { volatility, averageVolatility: average, factor }, `range ${fmt(volatility)}% ${fired ? '>' : '<='} ${factor} x average ${fmt(average)}%`);
    },
  };
}

function onChainRules(parameters: TCryptoMonitorParameters, onChain: OnChainInput): TRuleOutcome[] {
  const rules: TRuleOutcome[] = [];
  const notConfigured = (name: string): TRuleOutcome => ({ name, status: 'not configured', fired: false, values: {}, detail: 'not configured: set WHALE_ALERT_API_KEY to read on-chain data' });
  for (const [name, on] of onChainRulesWanted(parameters)) {
    if (!on) continue;
    if (!onChain.configured) {
      rules.push(notConfigured(name));
    } else if (!onChain.ok) {
      rules.push({ name, status: 'insufficient data', fired: false, values: {}, detail: `on-chain source failed: ${MARKET_FAILURES[onChain.failure]}` });
    } else {
      // Wallet tracking follows transfers whose sender or receiver the source has identified.
      const txs = name === 'Whale transaction' ? onChain.transactions : onChain.transactions.filter((t) => t.from !== 'unknown' || t.to !== 'unknown');
      const largest = txs.reduce((max, t) => Math.max(max, t.amountUsd), 0);
      rules.push({
        name,
        status: 'evaluated',
        fired: txs.length > 0,
        values: { transactions: txs.length, largestUsd: largest },
        detail: txs.length > 0 ? `${txs.length} transfer(s), largest $${formatNumber(largest, 0)}` : 'no large transfers since the previous run',
      });
    }
  }
  return rules;
}

/** The on-chain rules of the crypto template and whether the parameters turn each on. */
export const onChainRulesWanted = (parameters: TCryptoMonitorParameters) =>
  [
    ['Whale transaction', parameters.includeOnChainMetrics],
    ['Wallet tracking', parameters.walletTracking],
  ] as const;

/** An indicator series shown in the run's values, and drawn over the chart when `overlay`. */
export type IndicatorSeries = { name: string; values: Float64Array; overlay: boolean };

/**
 * A market's series prepared once for a plan: every indicator over the whole series in one pass,
 * and the template's market rules reading them. Any candle i can then be evaluated as a run whose
 * latest candle is i would evaluate it: every indicator and window here reads candles 0..i only,
 * so the values at i do not depend on the candles after it.
 */
export type PreparedMarket = {
  candles: readonly TCandle[];
  close: Float64Array;
  indicators: IndicatorSeries[];
  /** The template's market rules in the order a run lists them (the on-chain ones are not market rules). */
  rules: MarketRule[];
  thresholds: readonly TThreshold[];
  /** The simple moving average the template's rules and chart read ('SMA 20'), chosen or not. */
  movingAverage: IndicatorSeries;
  /** The candle i against the ones before it, as a run whose latest candle it is records it. */
  recent(i: number): TRecentMoves;
};

export function prepareMarket(plan: RunPlan, candles: readonly TCandle[]): PreparedMarket {
  const s = new Series(candles);
  const rsiValues = rsi(s.close, RSI_PERIOD);
  const indicators: IndicatorSeries[] = [{ name: `RSI ${RSI_PERIOD}`, values: rsiValues, overlay: false }];
  const add = (values: Record<string, Float64Array>, overlay: boolean) => {
    for (const [name, series] of Object.entries(values)) indicators.push({ name, values: series, overlay });
  };
  const rules: MarketRule[] = [];
  let movingAverage: IndicatorSeries;
  if (plan.templateType === 'stock') {
    const { movingAveragePeriod: period, rsiThreshold: threshold, includeVolume } = plan.parameters;
    const chosen = new Set(plan.parameters.indicators);
    const ma = sma(s.close, period);
    movingAverage = { name: `SMA ${period}`, values: ma, overlay: true };
    if (chosen.has('SMA')) indicators.push(movingAverage);
    if (chosen.has('EMA')) add({ [`EMA ${period}`]: ema(s.close, period) }, true);
    if (chosen.has('MACD')) {
      const m = macd(s.close);
      add({ MACD: m.macd, 'MACD signal': m.signal, 'MACD histogram': m.histogram }, false);
    }
    if (chosen.has('Bollinger Bands')) {
      const b = bollinger(s.close);
      add({ 'Bollinger upper': b.upper, 'Bollinger middle': b.middle, 'Bollinger lower': b.lower }, true);
    }
    if (chosen.has('Stochastic Oscillator')) {
      const st = stochastic(
        s.candles.map((c) => c.high),
        s.candles.map((c) => c.low),
        s.close,
      );
      add({ '%K': st.k, '%D': st.d }, false);
    }
    rules.push(rsiRule(rsiValues, threshold), crossoverRule(s, ma, period));
    if (includeVolume) rules.push(volumeRule(s, STOCK_VOLUME_FACTOR, 'Volume spike'));
  } else {
    movingAverage = { name: `SMA ${CRYPTO_MA_PERIOD}`, values: sma(s.close, CRYPTO_MA_PERIOD), overlay: true };
    indicators.push(movingAverage);
  }
  // The Custom Monitor has no fixed signals (issue 30): its conditions and thresholds decide.
  if (plan.templateType === 'crypto') {
    const { priceChangeThreshold, volatilityThreshold } = plan.parameters;
    rules.push(priceChangeRule(s, priceChangeThreshold), volatilityRule(s, volatilityThreshold), volumeRule(s, CRYPTO_VOLUME_FACTOR, 'Volume surge'));
  }
  return { candles, close: s.close, indicators, rules, thresholds: plan.thresholds, movingAverage, recent: (i) => s.recent(i) };
}

/** The indicators' values on candle i, as a run records them. */
export function indicatorsAt(prepared: PreparedMarket, i: number): Record<string, number | null> {
  return Object.fromEntries(prepared.indicators.map((series) => [series.name, finite(series.values[i])]));
}

/**
 * The value of the plan's threshold `index` on candle i, or null when it cannot be measured
 * there (a run then records no condition for it): the cheap half of `thresholdCondition`.
 */
export function thresholdValueAt(prepared: PreparedMarket, index: number, i: number): number | null {
  return THRESHOLD_DEFINITIONS[prepared.thresholds[index]!.type].value(prepared.candles, i);
}

/**
 * The values of each of the plan's thresholds on candles from..end (NaN where one cannot be
 * measured), each as thresholdValueAt reads it; types that measure the same way (the two volume
 * alerts) share one reading. For a test on history, which asks every candle.
 */
export function thresholdValuesFrom(prepared: PreparedMarket, from: number): Float64Array[] {
  const byMeasure = new Map<unknown, Float64Array>();
  return prepared.thresholds.map(({ type }) => {
    const measure = THRESHOLD_DEFINITIONS[type].value;
    let values = byMeasure.get(measure);
    if (!values) {
      values = new Float64Array(Math.max(0, prepared.candles.length - from));
      for (let i = from; i < prepared.candles.length; i++) values[i - from] = measure(prepared.candles, i) ?? Number.NaN;
      byMeasure.set(measure, values);
    }
    return values;
  });
}

/** An alert the user set, measured on candle i with its one definition (contracts). */
export function thresholdCondition(prepared: PreparedMarket, index: number, i: number, market: string): ThresholdCondition | null {
  const threshold = prepared.thresholds[index]!;
  const reading = THRESHOLD_DEFINITIONS[threshold.type].measure(prepared.candles, i);
  if (reading === null) return null;
  return {
    thresholdType: threshold.type,
    firing: reading.measured > threshold.value,
    value: round(reading.measured, 4),
    limit: threshold.value,
    message: alertText(threshold, market, reading),
  };
}

/** What a run whose latest candle is i records of the market's rules and alerts (the on-chain rules aside). */
export function outcomeAt(prepared: PreparedMarket, i: number, market: string): { rules: TRuleOutcome[]; thresholds: ThresholdCondition[] } {
  return {
    rules: prepared.rules.map((r) => r.outcome(i)),
    thresholds: prepared.thresholds.flatMap((_, index) => thresholdCondition(prepared, index, i, market) ?? []),
  };
}

/** Six decimals are more than a chart can draw; rounded by arithmetic, not toFixed (a test on history draws thousands). */
const CHART_SCALE = 1e6;
function toNullable(values: Float64Array, from: number): Array<number | null> {
  const out = new Array<number | null>(Math.max(0, values.length - from));
  for (let i = from; i < values.length; i++) {
    const v = values[i]!;
    out[i - from] = Number.isFinite(v) ? Math.round(v * CHART_SCALE) / CHART_SCALE : null;
  }
  return out;
}

/** The chart of candles from..end with the given markers, and overlays: by default the chosen indicators drawn over the price. */
export function chartOf(prepared: PreparedMarket, from: number, markers: TChartData['markers'], overlaid = prepared.indicators.filter((series) => series.overlay)): TChartData {
  const overlays = Object.fromEntries(overlaid.map((series) => [series.name, toNullable(series.values, from)]));
  return { candles: prepared.candles.slice(from), overlays, markers };
}

/**
 * Evaluates one market's candles for a plan: indicators, the template's market rules, alerts and
 * chart, without the on-chain rules. Pure, so runs with the same plan on the same candles share
 * one evaluation (the runtime's batches do). `candles` is oldest first, at least 2.
 */
export function evaluateMarketSignals(plan: RunPlan, market: string, candles: readonly TCandle[]): MarketEvaluation {
  const prepared = prepareMarket(plan, candles);
  const i = prepared.candles.length - 1;
  const chartFrom = Math.max(0, prepared.candles.length - CHART_CANDLES);
  // A marker on every chart candle where a signal would have fired, signal by signal.
  const markers: TChartData['markers'] = [];
  for (const rule of prepared.rules) {
    for (let at = chartFrom; at <= i; at++) if (rule.fires(at)) markers.push({ time: prepared.candles[at]!.time, rule: rule.name });
  }
  const { rules, thresholds } = outcomeAt(prepared, i, market);
  return { indicators: indicatorsAt(prepared, i), rules, chart: chartOf(prepared, chartFrom, markers), thresholds, recent: prepared.recent(i) };
}

/** The template's on-chain rules (crypto; none for stocks), listed after the market rules. */
export function onChainOutcomes(plan: RunPlan, onChain: OnChainInput): TRuleOutcome[] {
  return plan.templateType === 'crypto' ? onChainRules(plan.parameters, onChain) : [];
}

/** Evaluates one market for its agent's template. `candles` is oldest first, at least 2. */
export function evaluateMarket(input: { plan: RunPlan; market: string; candles: readonly TCandle[]; onChain: OnChainInput }): MarketEvaluation {
  const evaluation = evaluateMarketSignals(input.plan, input.market, input.candles);
  return { ...evaluation, rules: [...evaluation.rules, ...onChainOutcomes(input.plan, input.onChain)] };
}

/** The signed mean percent change of the watched prices since the previous run, e.g. '+1.2%'. */
export function performanceSince(previous: ReadonlyMap<string, number>, current: ReadonlyMap<string, number>): string | null {
  const changes: number[] = [];
  for (const [market, price] of current) {
    const before = previous.get(market);
    if (before !== undefined && before > 0) changes.push((price / before - 1) * 100);
  }
  if (changes.length === 0) return null;
  const mean = changes.reduce((a, b) => a + b, 0) / changes.length;
  const rounded = Math.round(mean * 10) / 10;
  return `${rounded > 0 ? '+' : rounded < 0 ? '-' : ''}${Math.abs(rounded).toFixed(1)}%`;
}
