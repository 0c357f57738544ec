import { clausesOf, clauseText, operandText, sidesOf, type TClause, type TCondition, type TIndicatorOperand, type TOperand } from '../../../contracts/conditions.ts';
import type { TClauseOutcome } from '../../../contracts/condition-outcomes.ts';
import { TIMEFRAME_MS, type TCandle, type TCandleTimeframe } from '../../../contracts/market.ts';
import { atr, bollinger, ema, macd, rsi, sma, stochastic, vwap, type BollingerResult, type MacdResult, type StochasticResult } from '../market/indicators.ts';

/**
 * The owner's conditions evaluated on candles (issue 30, decision 0071), one evaluation for live
 * runs and tests on history (as decision 0035 is for the templates' rules): `prepareConditions`
 * computes every side's series once over the whole series, shared by every clause and condition
 * that reads it, then any candle i of the agent's timeframe is evaluated as a run whose latest
 * candle is i would evaluate it:
 * - every indicator at index j reads candles 0..j of its own timeframe only;
 * - a longer timeframe's candle counts at agent candle i only once it has closed there (its open
 *   time + its length <= candle i's open time + the agent's length); before that the previous
 *   one counts; so a side on a longer timeframe never sees the future;
 * - crossings read both sides at i and i-1 of the agent's candles, each side aligned at i-1 too;
 * - the window operators (rises/falls by within N, rising/falling for N) count candles of the
 *   left side's own timeframe ("rising for 3 candles" on 1 day is three daily steps), decided
 *   on its closed candles and aligned like a side.
 */

/** Candles per timeframe, oldest first; must hold the agent's timeframe. */
export type ConditionSeries = ReadonlyMap<TCandleTimeframe, readonly TCandle[]>;

export type PreparedConditions = {
  /** The agent's timeframe's candles (the evaluation clock). */
  candles: readonly TCandle[];
  /** Condition `c` (index in the list) at candle i of the agent's timeframe: true, false, or null (undecided). Fast: no strings. */
  met(c: number, i: number): boolean | null;
  /** What a run records of condition c at candle i: met, and per clause its text, met and each side's value at i and i-1. */
  outcome(c: number, i: number): { met: boolean | null; clauses: TClauseOutcome[] };
};

/** The %K smoothing the product's stochastic uses (decision 0071). */
const STOCHASTIC_SMOOTH = 3;
const DAY_MS = 86_400_000;

/** Index of the first candle at which an operand has a value on a long enough series. */
function warmUp(operand: TIndicatorOperand, timeframe: TCandleTimeframe): number {
  switch (operand.indicator) {
    case 'open':
    case 'high':
    case 'low':
    case 'close':
    case 'volume':
      return 0;
    case 'change':
      return operand.candles;
    case 'sma':
    case 'ema':
    case 'bollinger':
      return operand.period - 1;
    case 'rsi':
    case 'atr':
      return operand.period;
    case 'macd':
      return operand.slow - 1 + (operand.signal - 1);
    case 'stochastic':
      return operand.k - 1 + (STOCHASTIC_SMOOTH - 1) + (operand.d - 1);
    case 'vwap':
      // The latest candle's whole UTC session so far (a daily or longer candle is its own).
      return TIMEFRAME_MS[timeframe] >= DAY_MS ? 0 : DAY_MS / TIMEFRAME_MS[timeframe] - 1;
  }
}

const isWindowOperator = (clause: TClause) => clause.operator === 'rises-by' || clause.operator === 'falls-by' || clause.operator === 'rising' || clause.operator === 'falling';

/**
 * Candles each timeframe needs, counting the latest, so every side (and its previous value, for
 * crossings and windows) is defined at the latest candle: the warm-up a live run fetches. A side
 * first defined at index w, read N candles back by its operator (1 for all but the windows),
 * needs w + N + 2 candles: the latest may still be forming (the agent's own, for 'once per
 * candle close', which decides on the candle before it; a longer timeframe's nearly always), and
 * the agent's candle before the decided one may read the longer candle before the latest closed.
 */
export function conditionCandlesNeeded(conditions: readonly TCondition[], agentTimeframe: TCandleTimeframe): Map<TCandleTimeframe, number> {
  const needed = new Map<TCandleTimeframe, number>([[agentTimeframe, 1]]);
  const need = (timeframe: TCandleTimeframe, candles: number) => needed.set(timeframe, Math.max(needed.get(timeframe) ?? 0, candles));
  for (const condition of conditions) {
    for (const { clause } of clausesOf(condition.when)) {
      // Crossings read the candle before on every side; windows read N candles before on the left.
      const before = isWindowOperator(clause) ? (clause.candles ?? 0) : 1;
      // The agent's clock reads its candle before the decided one for every side (a crossing on a
      // longer timeframe too), even where no side is on the agent's timeframe.
      need(agentTimeframe, 1 + 2);
      for (const side of sidesOf(clause)) {
        if (side.indicator === 'number') continue;
        const timeframe = side.timeframe ?? agentTimeframe;
        need(timeframe, warmUp(side, timeframe) + before + 2);
      }
    }
  }
  return needed;
}

/** Index of the latest candle closed at `now` (open time + length <= now), -1 if none. */
export function latestClosedIndex(candles: readonly TCandle[], timeframe: TCandleTimeframe, now: number): number {
  const length = TIMEFRAME_MS[timeframe];
  let i = candles.length - 1;
  while (i >= 0 && candles[i]!.time + length > now) i--;
  return i;
}

/** Values as a run records them: six decimals, or six significant digits below 1 (a token at 1e-7). */
/**
 * Compares two indicator values as equal when they differ by float noise only: rolling sums
 * (SMA, Bollinger) carry rounding that depends on where the series starts, so a live run (the
 * latest candles) and a test on history (the whole series) could otherwise decide a tie such as
 * "rising" between two mathematically equal values differently. One part in 10^9 is far below
 * any price step a market quotes.
 */
const RELATIVE_TIE = 1e-9;
export function compareValues(a: number, b: number): -1 | 0 | 1 {
  if (a === b || Math.abs(a - b) <= RELATIVE_TIE * Math.max(Math.abs(a), Math.abs(b))) return 0;
  return a > b ? 1 : -1;
}

function rounded(value: number): number | null {
  if (!Number.isFinite(value)) return null;
  return Math.abs(value) >= 1 ? Math.round(value * 1e6) / 1e6 : Number(value.toPrecision(6));
}

/** A clause's answer per agent candle. */
const UNDECIDED = -1;
const FALSE = 0;
const TRUE = 1;

/** One timeframe's candles as columns, computed once. */
type Columns = { time: Float64Array; open: Float64Array; high: Float64Array; low: Float64Array; close: Float64Array; volume: Float64Array };

function columnsOf(candles: readonly TCandle[]): Columns {
  const n = candles.length;
  const c: Columns = { time: new Float64Array(n), open: new Float64Array(n), high: new Float64Array(n), low: new Float64Array(n), close: new Float64Array(n), volume: new Float64Array(n) };
  for (let i = 0; i < n; i++) {
    const candle = candles[i]!;
    c.time[i] = candle.time;
    c.open[i] = candle.open;
    c.high[i] = candle.high;
    c.low[i] = candle.low;
    c.close[i] = candle.close;
    c.volume[i] = candle.volume;
  }
  return c;
}

/** An operand's identity apart from its timeframe: keys sorted, so two spellings of one side share. */
function operandKey(operand: TIndicatorOperand, timeframe: TCandleTimeframe): string {
  const entries = Object.entries(operand)
    .filter(([key]) => key !== 'timeframe')
    .sort(([a], [b]) => (a < b ? -1 : 1));
  return `${timeframe}|${entries.map(([key, value]) => `${key}=${String(value)}`).join(',')}`;
}

type CompiledGroup = { join: 'all' | 'any'; items: Array<number | CompiledGroup> };
type CompiledClause = { path: string; clause: TClause; text: string; sides: Float64Array[]; labels: string[]; result: Int8Array | null };

/** A group's answers at every candle from its items' (clauses' answers, or a group's): one pass per item. */
function joinAll(group: CompiledGroup, answers: (clause: number) => Int8Array, n: number): Int8Array {
  const all = group.join === 'all';
  // 'all of' starts true and falls to false on a false item; 'any of' starts false and rises to true.
  const out = new Int8Array(n).fill(all ? TRUE : FALSE);
  const decisive = all ? FALSE : TRUE;
  for (const item of group.items) {
    const a = typeof item === 'number' ? answers(item) : joinAll(item, answers, n);
    for (let i = 0; i < n; i++) {
      const x = a[i]!;
      const o = out[i]!;
      if (o === decisive) continue;
      if (x === decisive) out[i] = decisive;
      else if (x === UNDECIDED) out[i] = UNDECIDED;
    }
  }
  return out;
}

const toAnswer = (a: number): boolean | null => (a === TRUE ? true : a === FALSE ? false : null);

/**
 * Every operand's series computed once over the whole series; any candle i is then evaluated as
 * a run whose latest candle is i would (longer timeframes aligned with no look-ahead, decision 0071).
 */
export function prepareConditions(conditions: readonly TCondition[], agentTimeframe: TCandleTimeframe, series: ConditionSeries): PreparedConditions {
  const candles = series.get(agentTimeframe) ?? [];
  const n = candles.length;
  const agentLength = TIMEFRAME_MS[agentTimeframe];
  const memo = new Map<string, unknown>();
  const once = <T>(key: string, make: () => T): T => {
    if (!memo.has(key)) memo.set(key, make());
    return memo.get(key) as T;
  };
  const columns = (timeframe: TCandleTimeframe) => once(`columns|${timeframe}`, () => columnsOf(series.get(timeframe) ?? []));

  /** For each agent candle, the index of the latest candle of `timeframe` closed at its close, -1 if none; null: the agent's own. */
  const alignment = (timeframe: TCandleTimeframe): Int32Array | null => {
    if (timeframe === agentTimeframe) return null;
    return once(`align|${timeframe}`, () => {
      const longer = series.get(timeframe) ?? [];
      const length = TIMEFRAME_MS[timeframe];
      const index = new Int32Array(n);
      let j = -1;
      for (let i = 0; i < n; i++) {
        const close = candles[i]!.time + agentLength;
        while (j + 1 < longer.length && longer[j + 1]!.time + length <= close) j++;
        index[i] = j;
      }
      return index;
    });
  };

  /** An operand's values on its own timeframe's candles. */
  const ownSeries = (operand: TIndicatorOperand, timeframe: TCandleTimeframe): Float64Array => {
    const col = columns(timeframe);
    switch (operand.indicator) {
      case 'open':
      case 'high':
      case 'low':
      case 'close':
      case 'volume':
        return col[operand.indicator];
      case 'change': {
        const out = new Float64Array(col.close.length).fill(Number.NaN);
        for (let j = operand.candles; j < out.length; j++) {
          const base = col.close[j - operand.candles]!;
          if (base !== 0) out[j] = (col.close[j]! / base - 1) * 100;
        }
        return out;
      }
      case 'sma':
        return sma(col.close, operand.period);
      case 'ema':
        return ema(col.close, operand.period);
      case 'rsi':
        return rsi(col.close, operand.period);
      case 'atr':
        return atr(col.high, col.low, col.close, operand.period);
      case 'macd': {
        const m = once<MacdResult>(`macd|${timeframe}|${operand.fast},${operand.slow},${operand.signal}`, () => macd(col.close, operand.fast, operand.slow, operand.signal));
        return m[operand.line === 'macd' ? 'macd' : operand.line];
      }
      case 'bollinger':
        return once<BollingerResult>(`bollinger|${timeframe}|${operand.period},${operand.k}`, () => bollinger(col.close, operand.period, operand.k))[operand.band];
      case 'stochastic':
        return once<StochasticResult>(`stochastic|${timeframe}|${operand.k},${operand.d}`, () => stochastic(col.high, col.low, col.close, operand.k, STOCHASTIC_SMOOTH, operand.d))[operand.line];
      case 'vwap':
        return vwap(col.time, col.high, col.low, col.close, col.volume, TIMEFRAME_MS[timeframe]);
    }
  };

  /** Values of `values` (on `timeframe`'s candles) at each agent candle, as aligned. */
  const aligned = (values: Float64Array, timeframe: TCandleTimeframe): Float64Array => {
    const index = alignment(timeframe);
    if (index === null) return values;
    const out = new Float64Array(n);
    for (let i = 0; i < n; i++) out[i] = index[i]! < 0 ? Number.NaN : values[index[i]!]!;
    return out;
  };

  /** A side's values at each agent candle, shared by every clause that reads it. */
  const side = (operand: TOperand): Float64Array => {
    if (operand.indicator === 'number') return once(`number|${operand.value}`, () => new Float64Array(n).fill(operand.value));
    const timeframe = operand.timeframe ?? agentTimeframe;
    const key = operandKey(operand, timeframe);
    const own = once(`own|${key}`, () => ownSeries(operand, timeframe));
    return once(`side|${key}`, () => aligned(own, timeframe));
  };

  /** A window operator decided on the left side's own candles, then aligned. */
  const windowResult = (clause: TClause): Int8Array => {
    const left = clause.left;
    const timeframe = left.timeframe ?? agentTimeframe;
    const values = once(`own|${operandKey(left, timeframe)}`, () => ownSeries(left, timeframe));
    const m = values.length;
    const candlesBack = clause.candles!;
    const own = new Int8Array(m).fill(UNDECIDED);
    // Finite values in a row ending at j; strict steps up (down) in a row ending at j.
    let finiteRun = 0;
    let upRun = 0;
    let downRun = 0;
    for (let j = 0; j < m; j++) {
      const v = values[j]!;
      if (Number.isFinite(v)) {
        const previous = j > 0 ? values[j - 1]! : Number.NaN;
        upRun = finiteRun > 0 && compareValues(v, previous) > 0 ? upRun + 1 : 0;
        downRun = finiteRun > 0 && compareValues(v, previous) < 0 ? downRun + 1 : 0;
        finiteRun++;
      } else finiteRun = upRun = downRun = 0;
      if (finiteRun < candlesBack + 1) continue;
      switch (clause.operator) {
        case 'rising':
          own[j] = upRun >= candlesBack ? TRUE : FALSE;
          break;
        case 'falling':
          own[j] = downRun >= candlesBack ? TRUE : FALSE;
          break;
        case 'rises-by':
        case 'falls-by': {
          const rises = clause.operator === 'rises-by';
          let extreme = values[j - candlesBack]!;
          for (let k = j - candlesBack + 1; k < j; k++) extreme = rises ? Math.min(extreme, values[k]!) : Math.max(extreme, values[k]!);
          // A change in % from 0 is not a number: undecided.
          if (extreme === 0) break;
          const change = ((rises ? v - extreme : extreme - v) / Math.abs(extreme)) * 100;
          own[j] = compareValues(change, clause.percent!) >= 0 ? TRUE : FALSE;
          break;
        }
        default:
          break;
      }
    }
    const index = alignment(timeframe);
    if (index === null) return own;
    const out = new Int8Array(n);
    for (let i = 0; i < n; i++) out[i] = index[i]! < 0 ? UNDECIDED : own[index[i]!]!;
    return out;
  };

  const pointResult = (clause: TClause, sides: Float64Array[]): Int8Array => {
    const out = new Int8Array(n).fill(UNDECIDED);
    const [left, a, b] = sides as [Float64Array, Float64Array, Float64Array | undefined];
    const defined = (x: number) => !Number.isNaN(x);
    for (let i = 0; i < n; i++) {
      const l = left[i]!;
      const r = a[i]!;
      if (!defined(l) || !defined(r)) continue;
      switch (clause.operator) {
        case 'above':
          out[i] = compareValues(l, r) > 0 ? TRUE : FALSE;
          break;
        case 'below':
          out[i] = compareValues(l, r) < 0 ? TRUE : FALSE;
          break;
        case 'between':
        case 'outside': {
          const upper = b![i]!;
          if (!defined(upper)) break;
          const fromLower = compareValues(l, r);
          const toUpper = compareValues(l, upper);
          const inside = fromLower >= 0 && toUpper <= 0;
          out[i] = (clause.operator === 'between' ? inside : fromLower < 0 || toUpper > 0) ? TRUE : FALSE;
          break;
        }
        default: {
          if (i < 1) break;
          const lb = left[i - 1]!;
          const rb = a[i - 1]!;
          if (!defined(lb) || !defined(rb)) break;
          const before = compareValues(lb, rb);
          const now = compareValues(l, r);
          const up = before <= 0 && now > 0;
          const down = before >= 0 && now < 0;
          const met = clause.operator === 'crosses-above' ? up : clause.operator === 'crosses-below' ? down : up || down;
          out[i] = met ? TRUE : FALSE;
        }
      }
    }
    return out;
  };

  const compiled: CompiledClause[][] = [];
  const groups: CompiledGroup[] = [];
  for (const condition of conditions) {
    const list: CompiledClause[] = [];
    const compile = (items: TCondition['when']['clauses'], prefix: string): CompiledGroup['items'] =>
      items.map((item, k) => {
        if (item.kind === 'group') return { join: item.join, items: compile(item.clauses, `${prefix}${k}.`) as number[] };
        const operands = sidesOf(item);
        list.push({ path: `${prefix}${k}`, clause: item, text: clauseText(item), sides: operands.map(side), labels: operands.map((o) => operandText(o)), result: null });
        return list.length - 1;
      });
    groups.push({ join: condition.when.join, items: compile(condition.when.clauses, '') });
    compiled.push(list);
  }

  const clauseResult = (c: number, k: number): Int8Array => {
    const entry = compiled[c]![k]!;
    entry.result ??= isWindowOperator(entry.clause) ? windowResult(entry.clause) : pointResult(entry.clause, entry.sides);
    return entry.result;
  };

  // Each condition's answers at every candle, joined once from its clauses' when first asked.
  const answers: Array<Int8Array | undefined> = [];
  const met = (c: number, i: number): boolean | null => {
    if (i < 0 || i >= n || c < 0 || c >= groups.length) return null;
    const all = (answers[c] ??= joinAll(groups[c]!, (k) => clauseResult(c, k), n));
    return toAnswer(all[i]!);
  };

  return {
    candles,
    met,
    outcome(c, i) {
      const clauses = (compiled[c] ?? []).map((entry, k): TClauseOutcome => {
        const answer = i >= 0 && i < n ? clauseResult(c, k)[i]! : UNDECIDED;
        return {
          path: entry.path,
          text: entry.text,
          met: toAnswer(answer),
          sides: entry.sides.map((values, s) => ({ label: entry.labels[s]!, at: rounded(values[i] ?? Number.NaN), before: rounded(i >= 1 ? (values[i - 1] ?? Number.NaN) : Number.NaN) })),
        };
      });
      return { met: met(c, i), clauses };
    },
  };
}
