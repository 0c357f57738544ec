import { thresholdLabel, thresholdValueText } from '../../../contracts/alert-thresholds.ts';
import {
  BACKTEST_FIRINGS_LISTED,
  FLOOD_NOTIFICATIONS_PER_DAY,
  FORWARD_HORIZONS,
  type TBacktestFiring,
  type TBacktestMarket,
  type TBacktestResult,
  type TBacktestRow,
  type TDirection,
  type TForwardStats,
  type THistoryCoverage,
} from '../../../contracts/backtest.ts';
import { clausesOf, conditionTitle, sidesOf, type TCondition } from '../../../contracts/conditions.ts';
import { tooFewCandlesError, TIMEFRAME_MS, type TCandle, type TCandleTimeframe, type TChartData, type TMarketSource } from '../../../contracts/market.ts';
import { conditionCandlesNeeded, prepareConditions, type ConditionSeries, type PreparedConditions } from '../conditions/engine.ts';
import { conditionStatus, decideTrigger, INITIAL_TRIGGER_STATE, type TriggerState } from '../conditions/trigger.ts';
import { candlesNeeded, chartOf, MIN_CANDLES, onChainRulesWanted, prepareMarket, thresholdCondition, thresholdValuesFrom, type PreparedMarket } from '../runtime/evaluate.ts';
import { MAX_PER_HOUR_DEFAULT } from '../../../contracts/agents.ts';
import { CAP_WINDOW_MS, resumesAt } from '../notifications/alert-storm.ts';
import type { RunPlan } from '../runtime/run-plan.ts';
import { median } from './statistics.ts';

/**
 * "Test on history" (issue 16, decision records 0034 and 0035): each of a market's last N candles
 * evaluated as a live run whose latest candle it is, with the live code (`prepareMarket` and the
 * rules' `fires`, the alerts' `value`, the conditions' `met`), the alerts' once-per-event rule
 * and the conditions' triggers applied as the notifications do live. Strings are built only for
 * the firings listed.
 */

export type BacktestMarketInput = {
  label: string;
  symbol: string;
  source: TMarketSource;
  timeframe: TCandleTimeframe;
  simulated: boolean;
  /** Oldest first, warm-up included; the last N (request.candles) are evaluated, or all when fewer arrived. */
  candles: readonly TCandle[];
  /** The longer timeframes the conditions read, oldest first, covering the same period with their own warm-up. */
  longer?: ConditionSeries;
  history: THistoryCoverage;
};

type FailedMarket = Extract<TBacktestMarket, { ok: false }>;

export type BacktestInput = {
  templateId: string;
  plan: RunPlan;
  candles: number;
  timeZone: string;
  channels: { email: boolean; inApp: boolean };
  /** The agent's notifications per hour (its config's, MAX_PER_HOUR_DEFAULT when unset). */
  maxPerHour?: number;
  /** The owner's conditions (config.conditions), evaluated with their triggers. */
  conditions?: readonly TCondition[];
  /** One per watched market, in the order of marketsOf(plan); a market whose history could not be read is passed as its failed entry. */
  markets: Array<BacktestMarketInput | FailedMarket>;
};

export const NOT_TESTED_REASON = 'The on-chain source keeps no history to replay.';

/**
 * Candles to fetch per market for `candles` evaluated ones: the warm-up the plan's indicators need
 * plus `candles`. The warm-up is what a live run fetches less its own latest candle, so the first
 * evaluated candle is read on the very candles a live run would have read (decision 0035).
 */
export function historyNeeded(plan: RunPlan, candles: number, conditions: readonly TCondition[] = [], timeframe?: TCandleTimeframe): number {
  const conditionWarmUp = conditions.length > 0 && timeframe !== undefined ? (conditionCandlesNeeded(conditions, timeframe).get(timeframe) ?? 0) : 0;
  return Math.max(candlesNeeded(plan), conditionWarmUp) - 1 + candles;
}

/**
 * Candles to fetch of each longer timeframe the conditions read, for agent candles from
 * `firstTime` (the oldest fetched) to `now`: the period in that timeframe's candles, plus the
 * one forming, plus the warm-up its sides need before the first (conditionCandlesNeeded).
 */
export function longerHistoryNeeded(conditions: readonly TCondition[], timeframe: TCandleTimeframe, firstTime: number, now: number): Map<TCandleTimeframe, number> {
  const wanted = new Map<TCandleTimeframe, number>();
  for (const [longer, warmUp] of conditionCandlesNeeded(conditions, timeframe)) {
    if (longer === timeframe) continue;
    wanted.set(longer, Math.ceil(Math.max(0, now - firstTime) / TIMEFRAME_MS[longer]) + 1 + warmUp);
  }
  return wanted;
}

/** A row's firings' forward changes, for its statistics: per horizon, the changes that exist. */
type ForwardTally = { changes: number[]; pointed: number; agreeing: number };

type Row = {
  kind: TBacktestRow['kind'];
  key: string;
  label: string;
  fired: number;
  notifications: number | null;
  forward: ForwardTally[];
};

/**
 * The firings found on the fast path, oldest first, as parallel lists (a long test finds tens of
 * thousands; objects would keep the collector busy): the row, the candle, whether it started an
 * alert event. Directions, forward changes and texts are derived from them when needed.
 */
type Hits = { row: number[]; at: number[]; notified: boolean[] };

/** Rounded by arithmetic, not toFixed: a long test rounds three changes for each of thousands of firings. */
const round = (value: number, digits = 4) => {
  const scale = 10 ** digits;
  return Math.round(value * scale) / scale;
};
const compare = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);

function newRows(plan: RunPlan, prepared: PreparedMarket, conditions: readonly TCondition[]): Row[] {
  const tallies = () => FORWARD_HORIZONS.map((): ForwardTally => ({ changes: [], pointed: 0, agreeing: 0 }));
  return [
    ...prepared.rules.map((rule): Row => ({ kind: 'signal', key: rule.name, label: rule.name, fired: 0, notifications: null, forward: tallies() })),
    ...plan.thresholds.map(
      (t, index): Row => ({ kind: 'alert', key: `threshold-${index}`, label: `${thresholdLabel(t.type)} > ${thresholdValueText(t.type, t.value)}`, fired: 0, notifications: 0, forward: tallies() }),
    ),
    ...conditions.map((c): Row => ({ kind: 'condition', key: `condition-${c.id}`, label: conditionTitle(c), fired: 0, notifications: 0, forward: tallies() })),
  ];
}

function tally(row: Row, close: Float64Array, i: number, direction: TDirection, notified: boolean): void {
  row.fired++;
  if (notified) row.notifications = (row.notifications ?? 0) + 1;
  for (let h = 0; h < FORWARD_HORIZONS.length; h++) {
    const change = forwardChange(close, i, FORWARD_HORIZONS[h]!);
    if (change === null) continue;
    const t = row.forward[h]!;
    t.changes.push(change);
    if (direction === null) continue;
    t.pointed++;
    if (direction === 'up' ? change > 0 : change < 0) t.agreeing++;
  }
}


function rowOf(row: Row): TBacktestRow {
  const forward = FORWARD_HORIZONS.map((horizon, h): TForwardStats => {
    const { changes, pointed, agreeing } = row.forward[h]!;
    return {
      horizon,
      count: changes.length,
      average: changes.length === 0 ? null : round(changes.reduce((a, b) => a + b, 0) / changes.length),
      median: changes.length === 0 ? null : round(median(changes)),
      shareInDirection: pointed === 0 ? null : round(agreeing / pointed),
    };
  });
  return { kind: row.kind, key: row.key, label: row.label, fired: row.fired, notifications: row.notifications, forward };
}

/** Rows of several markets as one: counts added, forward changes pooled. */
function mergeRows(rows: readonly Row[][], template: readonly Row[]): Row[] {
  return template.map((first, r) => ({
    ...first,
    fired: rows.reduce((sum, market) => sum + market[r]!.fired, 0),
    notifications: first.notifications === null ? null : rows.reduce((sum, market) => sum + (market[r]!.notifications ?? 0), 0),
    forward: first.forward.map((_, h) => ({
      changes: rows.flatMap((market) => market[r]!.forward[h]!.changes),
      pointed: rows.reduce((sum, market) => sum + market[r]!.forward[h]!.pointed, 0),
      agreeing: rows.reduce((sum, market) => sum + market[r]!.forward[h]!.agreeing, 0),
    })),
  }));
}

/** The close-to-close move of candle i: the direction of a firing whose rule points no way itself. */
function moveOf(close: Float64Array, i: number): TDirection {
  if (i < 1) return null;
  const change = close[i]! - close[i - 1]!;
  return change > 0 ? 'up' : change < 0 ? 'down' : null;
}

/** Close-to-close change in % from candle i to `horizon` candles later; null past the end. */
function forwardChange(close: Float64Array, i: number, horizon: number): number | null {
  return i + horizon < close.length && close[i]! > 0 ? (close[i + horizon]! / close[i]! - 1) * 100 : null;
}

type Replayed = { market: Extract<TBacktestMarket, { ok: true }>; rows: Row[]; notificationTimes: number[] };

/** Per clause of a condition, in outcome order, which sides are numbers (their words say them already). */
const numberSidesOf = (condition: TCondition) => clausesOf(condition.when).map(({ clause }) => sidesOf(clause).map((side) => side.indicator === 'number'));

/** A met condition as a run records it, in a line: each clause's words and its sides' values at the candle (and before). */
function conditionDetail(prepared: PreparedConditions, c: number, i: number, numberSides: readonly boolean[][]): string {
  return prepared
    .outcome(c, i)
    .clauses.map(({ text, sides }, k) => {
      const values = sides.filter((_, s) => !numberSides[k]![s]).map((side) => `${side.label} ${side.at ?? 'undefined'} (before ${side.before ?? 'undefined'})`);
      return values.length === 0 ? text : `${text}: ${values.join(', ')}`;
    })
    .join('; ');
}

/**
 * One market's candles from `from` on, each as a live run whose latest candle it is: the rules'
 * decisions and the alerts' values (no strings), the alert states as run-executor's
 * `raiseAlerts` and the notifications' `applyAlerts` keep them (per threshold type; the conditions
 * that fire or were marked before the run, in applyAlerts' order),
 * then the texts of the latest BACKTEST_FIRINGS_LISTED firings.
 */
/** A market's series prepared for its replay: the plan's indicators and the conditions' sides, once each. */
type PreparedReplay = { input: BacktestMarketInput; prepared: PreparedMarket; met: PreparedConditions | null; from: number };

function prepareReplay(plan: RunPlan, input: BacktestMarketInput, evaluate: number, conditions: readonly TCondition[]): PreparedReplay | FailedMarket {
  const n = input.candles.length;
  const { label, symbol, source, simulated } = input;
  if (n < MIN_CANDLES) return { ok: false, label, symbol, source, simulated, failure: n === 0 ? 'no-data' : 'too-few-candles', error: tooFewCandlesError(n, MIN_CANDLES) };
  // The conditions on the agent's candles and the longer ones they read.
  const met = conditions.length === 0 ? null : prepareConditions(conditions, input.timeframe, new Map([...(input.longer ?? []), [input.timeframe, input.candles]]));
  // A live run needs MIN_CANDLES, so the first candle a run could end at is MIN_CANDLES - 1.
  return { input, prepared: prepareMarket(plan, input.candles), met, from: Math.max(MIN_CANDLES - 1, n - evaluate) };
}

/**
 * When each 'Only once' condition disarms itself: live, a condition is disarmed for every market
 * at once (its per-market state holds only the last notification), so the first run in which it
 * is met on any market notifies it there, on every market met in that run, and none later. The
 * candle time of that run, per condition index; absent: never met while active.
 */
function onceDisarmTimes(conditions: readonly TCondition[], markets: readonly PreparedReplay[]): Map<number, number> {
  const times = new Map<number, number>();
  conditions.forEach((condition, c) => {
    if (condition.trigger.mode !== 'once') return;
    for (const { input, met, from } of markets) {
      const candleMs = TIMEFRAME_MS[input.timeframe];
      for (let i = from; i < input.candles.length; i++) {
        const time = input.candles[i]!.time;
        if ((times.get(c) ?? Infinity) <= time) break;
        if (met!.met(c, i) === true && conditionStatus(condition.trigger, INITIAL_TRIGGER_STATE, time + candleMs) === 'active') {
          times.set(c, time);
          break;
        }
      }
    }
  });
  return times;
}

function replayMarket(plan: RunPlan, { input, prepared, met, from }: PreparedReplay, conditions: readonly TCondition[], onceDisarmed: ReadonlyMap<number, number>): Replayed {
  const n = input.candles.length;
  const { label, symbol, source, simulated } = input;
  const rows = newRows(plan, prepared, conditions);
  const { rules, close, candles } = prepared;
  const thresholds = plan.thresholds;
  const active = new Set<string>();
  const firing = new Array<boolean>(thresholds.length);
  const passed = new Array<boolean>(thresholds.length);
  const notified = new Array<boolean>(thresholds.length);
  const hits: Hits = { row: [], at: [], notified: [] };
  const hit = (row: number, i: number, notified: boolean) => {
    hits.row.push(row);
    hits.at.push(i);
    hits.notified.push(notified);
  };
  const notificationTimes: number[] = [];
  // The thresholds of each type, in configured order: one alert state each (applyAlerts' key).
  const groups = [...new Set(thresholds.map((t) => t.type))].map((type) => ({ type, members: thresholds.flatMap((t, k) => (t.type === type ? [k] : [])) }));

  const values = thresholdValuesFrom(prepared, from);

  // A trigger state per condition in memory as the live one is stored for the market; each
  // candle is decided at its close.
  const states: TriggerState[] = conditions.map(() => INITIAL_TRIGGER_STATE);
  const firstConditionRow = rules.length + thresholds.length;
  const candleMs = TIMEFRAME_MS[input.timeframe];

  for (let i = from; i < n; i++) {
    for (let r = 0; r < rules.length; r++) {
      if (rules[r]!.fires(i) === true) hit(r, i, false);
    }
    // raiseAlerts passes on the conditions that fire or were marked before this run; a
    // threshold that cannot be measured is no condition at all, and its state stays as it is.
    for (let k = 0; k < thresholds.length; k++) {
      const value = values[k]![i - from]!;
      const measured = !Number.isNaN(value);
      const fires = measured && value > thresholds[k]!.value;
      firing[k] = fires;
      passed[k] = fires || (measured && active.has(thresholds[k]!.type));
      notified[k] = false;
    }
    // applyAlerts decides one state per type from all of that type's conditions passed on: it
    // starts when any fires (each firing one is notified) and clears when none does.
    let started = false;
    for (const { type, members } of groups) {
      let anyPassed = false;
      let anyFiring = false;
      for (const k of members) {
        anyPassed ||= passed[k]!;
        anyFiring ||= firing[k]!;
      }
      if (!anyPassed) continue;
      if (!anyFiring) active.delete(type);
      else if (!active.has(type)) {
        active.add(type);
        started = true;
        for (const k of members) notified[k] = firing[k]!;
      }
    }
    for (let k = 0; k < thresholds.length; k++) {
      if (firing[k]) hit(rules.length + k, i, notified[k]!);
    }
    for (let c = 0; met !== null && c < conditions.length; c++) {
      if (met.met(c, i) !== true) continue;
      const { trigger } = conditions[c]!;
      const closedAt = candles[i]!.time + candleMs;
      // Disarmed by a run before this one, on this market or another.
      if (candles[i]!.time > (onceDisarmed.get(c) ?? Infinity)) states[c] = { ...states[c]!, disarmed: true };
      let delivered = false;
      if (conditionStatus(trigger, states[c]!, closedAt) === 'active') {
        const decided = decideTrigger(trigger, states[c]!, candles[i]!.time, closedAt);
        states[c] = decided.state;
        delivered = decided.delivery === 'notified';
      }
      hit(firstConditionRow + c, i, delivered);
      started ||= delivered;
    }
    if (started) notificationTimes.push(candles[i]!.time);
  }

  // A signal that points a way (RSI extreme, the crossover) gives the direction; any other
  // firing takes its candle's own move.
  const directionOf = (row: number, i: number): TDirection => (row < rules.length ? rules[row]!.expects?.(i) : undefined) ?? moveOf(close, i);
  const count = hits.row.length;
  for (let h = 0; h < count; h++) {
    const [row, i] = [hits.row[h]!, hits.at[h]!];
    tally(rows[row]!, close, i, directionOf(row, i), hits.notified[h]!);
  }
  const firstListed = Math.max(0, count - BACKTEST_FIRINGS_LISTED);
  const numberSides = conditions.map(numberSidesOf);
  const firings: TBacktestFiring[] = [];
  const markers: TChartData['markers'] = [];
  for (let h = firstListed; h < count; h++) {
    const [row, i] = [hits.row[h]!, hits.at[h]!];
    const detail =
      row < rules.length ? rules[row]!.outcome(i).detail : row < firstConditionRow ? thresholdCondition(prepared, row - rules.length, i, label)!.message : conditionDetail(met!, row - firstConditionRow, i, numberSides[row - firstConditionRow]!);
    firings.push({
      key: rows[row]!.key,
      time: candles[i]!.time,
      price: close[i]!,
      direction: directionOf(row, i),
      detail,
      notified: hits.notified[h]!,
      forward: FORWARD_HORIZONS.map((horizon) => {
        const change = forwardChange(close, i, horizon);
        return change === null ? null : round(change);
      }),
    });
    markers.push({ time: candles[i]!.time, rule: rows[row]!.label });
  }
  return {
    market: {
      ok: true,
      label,
      symbol,
      source,
      simulated,
      timeframe: input.timeframe,
      from: new Date(candles[from]!.time).toISOString(),
      to: new Date(candles[n - 1]!.time).toISOString(),
      evaluated: n - from,
      history: input.history,
      rows: rows.map(rowOf),
      firings,
      firingsOmitted: firstListed,
      // Thousands of candles: only the average the rules read is drawn over them.
      chart: chartOf(prepared, from, markers, [prepared.movingAverage]),
    },
    rows,
    notificationTimes,
  };
}

/** Calendar days in `timeZone`, read from instants (ms) as 'YYYY-MM-DD'. */
function dayReader(timeZone: string) {
  // format() and a split: a test can count thousands of notifications, and formatToParts costs
  // several times as much. 'en-US' with numeric parts reads 'M/D/YYYY'.
  const format = new Intl.DateTimeFormat('en-US', { timeZone, year: 'numeric', month: 'numeric', day: 'numeric' });
  // Every zone's offset is a whole number of quarter hours, so no day starts inside a quarter
  // hour: one reading serves all the instants of one.
  const QUARTER_HOUR = 15 * 60_000;
  const cache = new Map<number, string>();
  return (instant: number): string => {
    const quarter = Math.floor(instant / QUARTER_HOUR);
    let day = cache.get(quarter);
    if (day === undefined) {
      const [month, date, year] = format.format(quarter * QUARTER_HOUR).split('/');
      day = `${year!.padStart(4, '0')}-${month!.padStart(2, '0')}-${date!.padStart(2, '0')}`;
      cache.set(quarter, day);
    }
    return day;
  };
}

const dayNumber = (day: string) => Date.UTC(Number(day.slice(0, 4)), Number(day.slice(5, 7)) - 1, Number(day.slice(8, 10))) / 86_400_000;

/**
 * The agent's per-hour cap over the candle times that started an event, as applyAlerts applies
 * it (decision 0041): in time order, an alert notification whose last hour already holds
 * `maxPerHour` sent ones is held, and each held period (named by when it ends) sends one storm
 * notice. Returns what reaches the owner: the sent times and the storm notices' times.
 */
function applyCap(times: readonly number[], maxPerHour: number): { delivered: number[]; held: number; stormNotices: number } {
  const sent: number[] = [];
  const delivered: number[] = [];
  let held = 0;
  let stormNotices = 0;
  let lastPeriod: number | null = null;
  let windowStart = 0;
  for (const time of times) {
    // The window is (time - 1 h, time], as alertTimesSinceMany reads it.
    while (windowStart < sent.length && sent[windowStart]! <= time - CAP_WINDOW_MS) windowStart++;
    // Never more than maxPerHour sent ones in the window: held ones do not enter it.
    const resumes = resumesAt(sent, maxPerHour, windowStart);
    if (resumes !== null) {
      held++;
      if (resumes !== lastPeriod) {
        lastPeriod = resumes;
        stormNotices++;
        delivered.push(time);
      }
    } else {
      sent.push(time);
      delivered.push(time);
    }
  }
  return { delivered, held, stormNotices };
}

/** One notification per candle time that started an alert event or notified a condition on any market, after the cap, counted per day. */
function notificationsOf(replayed: readonly Replayed[], timeZone: string, maxPerHour: number): TBacktestResult['notifications'] {
  if (replayed.length === 0) return { total: 0, maxPerHour, held: 0, stormNotices: 0, days: 0, perDay: 0, worstDay: null, floodDays: 0 };
  const dayOf = dayReader(timeZone);
  const first = Math.min(...replayed.map((r) => Date.parse(r.market.from)));
  const last = Math.max(...replayed.map((r) => Date.parse(r.market.to)));
  const days = dayNumber(dayOf(last)) - dayNumber(dayOf(first)) + 1;
  const times = [...new Set(replayed.flatMap((r) => r.notificationTimes))].sort((a, b) => a - b);
  const { delivered, held, stormNotices } = applyCap(times, maxPerHour);
  const perDay = new Map<string, number>();
  for (const time of delivered) {
    const day = dayOf(time);
    perDay.set(day, (perDay.get(day) ?? 0) + 1);
  }
  let worstDay: { date: string; count: number } | null = null;
  for (const [date, count] of [...perDay].sort(([a], [b]) => compare(a, b))) if (!worstDay || count > worstDay.count) worstDay = { date, count };
  return {
    total: delivered.length,
    maxPerHour,
    held,
    stormNotices,
    days,
    perDay: round(delivered.length / days, 2),
    worstDay,
    floodDays: [...perDay.values()].filter((count) => count > FLOOD_NOTIFICATIONS_PER_DAY).length,
  };
}

/** The plan evaluated on each market's history as live runs would have, with what followed each firing. */
export function runBacktest(input: BacktestInput): TBacktestResult {
  const { plan } = input;
  const conditions = input.conditions ?? [];
  const preparedMarkets = input.markets.map((m) => ('ok' in m ? m : prepareReplay(plan, m, input.candles, conditions)));
  const onceDisarmed = onceDisarmTimes(
    conditions,
    preparedMarkets.filter((m): m is PreparedReplay => !('ok' in m)),
  );
  const markets = preparedMarkets.map((m) => ('ok' in m ? m : replayMarket(plan, m, conditions, onceDisarmed)));
  const replayed = markets.filter((m): m is Replayed => !('ok' in m));
  const template = newRows(plan, prepareMarket(plan, []), conditions);
  const notTested = plan.templateType === 'crypto' ? onChainRulesWanted(plan.parameters).flatMap(([name, on]) => (on ? [{ name, reason: NOT_TESTED_REASON }] : [])) : [];
  return {
    templateId: input.templateId,
    candles: input.candles,
    simulated: input.markets.some((m) => m.simulated),
    timeZone: input.timeZone,
    channels: input.channels,
    markets: markets.map((m) => ('ok' in m ? m : m.market)),
    notTested,
    summary: mergeRows(
      replayed.map((r) => r.rows),
      template,
    ).map(rowOf),
    notifications: notificationsOf(replayed, input.timeZone, input.maxPerHour ?? MAX_PER_HOUR_DEFAULT),
  };
}
