import type { TCryptoMonitorParameters, TThreshold } from '../../../contracts/agents.ts';
import { alertText, THRESHOLD_AVERAGE_WINDOW, THRESHOLD_DEFINITIONS, type TThresholdType } from '../../../contracts/alert-thresholds.ts';
import { formatCompact, formatNumber } from '../../../contracts/number-format.ts';
import { MARKET_FAILURES, type TCandle, type TChartData, type TMarketFailure, type TRuleOutcome } from '../../../contracts/market.ts';
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
 */

/** The signals average over the same window as the volume alerts. */
export const AVERAGE_WINDOW = THRESHOLD_AVERAGE_WINDOW;
export const CHART_CANDLES = 60;
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

  get last(): number {
    return this.candles.length - 1;
  }

  percentChange(i: number): number | null {
    if (i < 1 || this.close[i - 1]! <= 0) return null;
    return (this.close[i]! / this.close[i - 1]! - 1) * 100;
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
  const rounded = Object.fromEntries(Object.entries(values).map(([k, v]) => [k, v === null ? null : round(v, 4)]));
  return fired === null
    ? { name, status: 'insufficient data', fired: false, values: rounded, detail }
    : { name, status: 'evaluated', fired, values: rounded, detail };
}

/** volume[i] > factor x its window average. */
function volumeRule(s: Series, i: number, factor: number, name: string): TRuleOutcome {
  const volume = s.volume[i]!;
  const average = s.windowMean(s.volume, i);
  if (average === null || average <= 0) return outcome(name, null, { volume, averageVolume: average, factor }, `not enough volume history (${AVERAGE_WINDOW} candles needed)`);
  const fired = volume > factor * average;
  return outcome(name, fired, { volume, averageVolume: average, factor }, `volume ${formatCompact(volume)} ${fired ? '>' : '<='} ${factor} x average ${formatCompact(average)}`);
}

function rsiRule(rsiValues: Float64Array, i: number, threshold: number): TRuleOutcome {
  const value = finite(rsiValues[i]);
  const name = 'RSI extreme';
  if (value === null) return outcome(name, null, { rsi: null, threshold }, 'RSI is undefined (too few candles, or no price movement)');
  const fired = value > threshold || value < 100 - threshold;
  const side = value > threshold ? `> ${threshold} (overbought)` : value < 100 - threshold ? `< ${100 - threshold} (oversold)` : `within ${100 - threshold}-${threshold}`;
  return outcome(name, fired, { rsi: value, threshold }, `RSI ${fmt(value)} ${side}`);
}

function crossoverRule(s: Series, ma: Float64Array, i: number, period: number): TRuleOutcome {
  const name = 'Moving average crossover';
  const [close, previousClose, current, previous] = [s.close[i]!, finite(s.close[i - 1]), finite(ma[i]), finite(ma[i - 1])];
  if (current === null || previous === null || previousClose === null) {
    return outcome(name, null, { close, ma: current, previousClose, previousMa: previous, period }, `needs ${period + 1} candles for the ${period}-candle average`);
  }
  const fired = previousClose <= previous && close > current;
  const detail = fired
    ? `close ${fmt(close)} crossed above SMA ${period} ${fmt(current)} (previous ${fmt(previousClose)} <= ${fmt(previous)})`
    : `no upward cross: close ${fmt(close)} vs SMA ${period} ${fmt(current)}, previous ${fmt(previousClose)} vs ${fmt(previous)}`;
  return outcome(name, fired, { close, ma: current, previousClose, previousMa: previous, period }, detail);
}

function priceChangeRule(s: Series, i: number, threshold: number): TRuleOutcome {
  const change = s.percentChange(i);
  if (change === null) return outcome('Price change', null, { percentChange: null, threshold }, 'needs two candles');
  const fired = Math.abs(change) > threshold;
  return outcome('Price change', fired, { percentChange: change, threshold }, `change ${change >= 0 ? '+' : ''}${fmt(change)}% ${fired ? '>' : '<='} ${threshold}% in size`);
}

function volatilityRule(s: Series, i: number, factor: number): TRuleOutcome {
  const volatility = finite(s.range[i]);
  const average = s.windowMean(s.range, i);
  if (volatility === null || average === null || average <= 0) {
    return outcome('Volatility spike', null, { volatility, averageVolatility: average, factor }, `not enough history (${AVERAGE_WINDOW} candles needed)`);
  }
  const fired = volatility > average * factor;
  return outcome('Volatility spike', fired, { volatility, averageVolatility: average, factor }, `range ${fmt(volatility)}% ${fired ? '>' : '<='} ${factor} x average ${fmt(average)}%`);
}

function onChainRules(parameters: TCryptoMonitorParameters, onChain: OnChainInput): TRuleOutcome[] {
  const rules: TRuleOutcome[] = [];
  const notConfigured = (name: string): TRuleOutcome => ({ name, status: 'not configured', fired: false, values: {}, detail: 'not configured: set WHALE_ALERT_API_KEY to read on-chain data' });
  const wanted = [
    ['Whale transaction', parameters.includeOnChainMetrics],
    ['Wallet tracking', parameters.walletTracking],
  ] as const;
  for (const [name, on] of wanted) {
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

/** An alert the user set, measured on the latest candle with its one definition (contracts). */
function thresholdCondition(candles: readonly TCandle[], threshold: TThreshold, market: string): ThresholdCondition | null {
  const reading = THRESHOLD_DEFINITIONS[threshold.type].measure(candles, candles.length - 1);
  if (reading === null) return null;
  return {
    thresholdType: threshold.type,
    firing: reading.measured > threshold.value,
    value: round(reading.measured, 4),
    limit: threshold.value,
    message: alertText(threshold, market, reading),
  };
}

const toNullable = (values: Float64Array, from: number) => Array.from(values.subarray(from), (v) => (Number.isFinite(v) ? round(v, 6) : null));

/** Evaluates one market for its agent's template. `candles` is oldest first, at least 2. */
export function evaluateMarket(input: { plan: RunPlan; market: string; candles: readonly TCandle[]; onChain: OnChainInput }): MarketEvaluation {
  const { plan, market } = input;
  const s = new Series(input.candles);
  const i = s.last;
  const chartFrom = Math.max(0, s.candles.length - CHART_CANDLES);
  const indicators: Record<string, number | null> = {};
  const overlays: Record<string, Array<number | null>> = {};
  const rules: TRuleOutcome[] = [];
  const markers: TChartData['markers'] = [];
  /** Marks every chart candle where a rule would have fired, and returns the latest outcome. */
  const withMarkers = (evaluate: (at: number) => TRuleOutcome): TRuleOutcome => {
    for (let at = chartFrom; at <= i; at++) {
      const o = evaluate(at);
      if (o.fired) markers.push({ time: s.candles[at]!.time, rule: o.name });
    }
    return evaluate(i);
  };

  const rsiValues = rsi(s.close, RSI_PERIOD);
  indicators[`RSI ${RSI_PERIOD}`] = finite(rsiValues[i]);

  if (plan.templateType === 'stock') {
    const { movingAveragePeriod: period, rsiThreshold: threshold, includeVolume } = plan.parameters;
    const chosen = new Set(plan.parameters.indicators);
    const ma = sma(s.close, period);
    if (chosen.has('SMA')) {
      indicators[`SMA ${period}`] = finite(ma[i]);
      overlays[`SMA ${period}`] = toNullable(ma, chartFrom);
    }
    if (chosen.has('EMA')) {
      const values = ema(s.close, period);
      indicators[`EMA ${period}`] = finite(values[i]);
      overlays[`EMA ${period}`] = toNullable(values, chartFrom);
    }
    if (chosen.has('MACD')) {
      const m = macd(s.close);
      Object.assign(indicators, { MACD: finite(m.macd[i]), 'MACD signal': finite(m.signal[i]), 'MACD histogram': finite(m.histogram[i]) });
    }
    if (chosen.has('Bollinger Bands')) {
      const b = bollinger(s.close);
      Object.assign(indicators, { 'Bollinger upper': finite(b.upper[i]), 'Bollinger middle': finite(b.middle[i]), 'Bollinger lower': finite(b.lower[i]) });
      Object.assign(overlays, { 'Bollinger upper': toNullable(b.upper, chartFrom), 'Bollinger middle': toNullable(b.middle, chartFrom), 'Bollinger lower': toNullable(b.lower, chartFrom) });
    }
    if (chosen.has('Stochastic Oscillator')) {
      const st = stochastic(
        s.candles.map((c) => c.high),
        s.candles.map((c) => c.low),
        s.close,
      );
      Object.assign(indicators, { '%K': finite(st.k[i]), '%D': finite(st.d[i]) });
    }
    rules.push(withMarkers((at) => rsiRule(rsiValues, at, threshold)));
    rules.push(withMarkers((at) => crossoverRule(s, ma, at, period)));
    if (includeVolume) rules.push(withMarkers((at) => volumeRule(s, at, STOCK_VOLUME_FACTOR, 'Volume spike')));
  } else {
    const ma = sma(s.close, CRYPTO_MA_PERIOD);
    indicators[`SMA ${CRYPTO_MA_PERIOD}`] = finite(ma[i]);
    overlays[`SMA ${CRYPTO_MA_PERIOD}`] = toNullable(ma, chartFrom);
    const { priceChangeThreshold: priceThreshold, volatilityThreshold: volatilityFactor } = plan.parameters;
    rules.push(withMarkers((at) => priceChangeRule(s, at, priceThreshold)));
    rules.push(withMarkers((at) => volatilityRule(s, at, volatilityFactor)));
    rules.push(withMarkers((at) => volumeRule(s, at, CRYPTO_VOLUME_FACTOR, 'Volume surge')));
    rules.push(...onChainRules(plan.parameters, input.onChain));
  }

  const thresholds = plan.thresholds.flatMap((t) => thresholdCondition(s.candles, t, market) ?? []);
  return { indicators, rules, chart: { candles: s.candles.slice(chartFrom), overlays, markers }, thresholds };
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
