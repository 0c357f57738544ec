import type { TClauseOutcome, TConditionOutcome, TNotifiedCondition } from '../../../contracts/condition-outcomes.ts';
import { clauseText, conditionText, OPERATOR_LABELS, sidesOf, type TClause, type TCondition, type TConditionGroup, type TOperator, type TSubGroup } from '../../../contracts/conditions.ts';
import type { TCandle, TCandleTimeframe } from '../../../contracts/market.ts';
import { formatLimit } from '../../../contracts/number-format.ts';
import { conditionCandlesNeeded, latestClosedIndex, prepareConditions, type ConditionSeries, type PreparedConditions } from '../conditions/engine.ts';
import { conditionStatus, decideTrigger, type TriggerState } from '../conditions/trigger.ts';

/**
 * A live run's side of the owner's conditions (issue 30, docs/decisions/0071 and 0073): the
 * candles each timeframe needs, the conditions prepared once per market's candles (shared by the
 * agents of a tick with the same conditions on the same candles), and per market what each
 * condition did: its outcome for Run History, and for those the trigger lets through, the
 * notification's plain words and the state to store.
 */

/** Most candles a live run asks of one timeframe (as the templates' runs). */
const MAX_CANDLES = 1000;

/** The candles each timeframe the conditions read needs, the agent's own included. */
export function conditionCandles(conditions: readonly TCondition[], agentTimeframe: TCandleTimeframe): Map<TCandleTimeframe, number> {
  const needed = conditionCandlesNeeded(conditions, agentTimeframe);
  for (const [timeframe, n] of needed) needed.set(timeframe, Math.min(MAX_CANDLES, n));
  return needed;
}

/** What a run leaves of a condition on a market it notified for. */
export type ConditionNotice = { notice: TNotifiedCondition; state: TriggerState; disarm: boolean; outcome: TConditionOutcome };

export type MarketConditions = { outcomes: TConditionOutcome[]; notified: ConditionNotice[] };

// Prepared conditions by the agent timeframe's candles (the candle cache hands every agent of a
// tick the same array), then by the conditions and the longer timeframes' arrays: agents with the
// same conditions on the same market compute every side once. Gone with the candles.
const prepared = new WeakMap<readonly TCandle[], Map<string, { series: ConditionSeries; prepared: PreparedConditions }>>();

/**
 * What agents sharing prepared conditions share of them too: each condition's plain words, and
 * its outcome at a candle (its clauses' texts and values), computed for the first agent that asks.
 */
type Shared = { texts: Map<number, string>; outcomes: Map<string, ReturnType<PreparedConditions['outcome']>> };
const sharedOf = new WeakMap<PreparedConditions, Shared>();
function shared(p: PreparedConditions): Shared {
  let found = sharedOf.get(p);
  if (!found) {
    found = { texts: new Map(), outcomes: new Map() };
    sharedOf.set(p, found);
  }
  return found;
}

export function preparedConditions(conditions: readonly TCondition[], agentTimeframe: TCandleTimeframe, series: ConditionSeries): PreparedConditions {
  const own = series.get(agentTimeframe)!;
  let byConditions = prepared.get(own);
  if (!byConditions) {
    byConditions = new Map();
    prepared.set(own, byConditions);
  }
  const key = JSON.stringify([agentTimeframe, conditions.map((c) => c.when)]);
  const found = byConditions.get(key);
  if (found && [...series].every(([timeframe, candles]) => found.series.get(timeframe) === candles)) return found.prepared;
  const made = prepareConditions(conditions, agentTimeframe, series);
  byConditions.set(key, { series, prepared: made });
  return made;
}

/**
 * Each condition on one market at `now`: expired and disarmed ones are recorded as such and not
 * evaluated; 'once-per-close' decides on the latest closed candle, the others on the latest one;
 * a met one goes through its trigger with its stored state.
 */
export function decideConditions(input: {
  conditions: readonly TCondition[];
  agentTimeframe: TCandleTimeframe;
  prepared: PreparedConditions;
  market: string;
  stateOf: (conditionId: string, market: string) => TriggerState;
  now: number;
}): MarketConditions {
  const { conditions, agentTimeframe, prepared: p, market, now } = input;
  const cache = shared(p);
  const outcomes: TConditionOutcome[] = [];
  const notified: ConditionNotice[] = [];
  conditions.forEach((condition, c) => {
    const state = input.stateOf(condition.id, market);
    let text = cache.texts.get(c);
    if (text === undefined) {
      text = conditionText(condition.when, agentTimeframe);
      cache.texts.set(c, text);
    }
    const title = condition.name && condition.name.trim() !== '' ? condition.name : text;
    const status = conditionStatus(condition.trigger, state, now);
    if (status !== 'active') {
      outcomes.push({ id: condition.id, title, text, status, met: false, candleTime: null, delivery: null, clauses: [] });
      return;
    }
    const i = condition.trigger.mode === 'once-per-close' ? latestClosedIndex(p.candles, agentTimeframe, now) : p.candles.length - 1;
    if (i < 0) {
      outcomes.push({ id: condition.id, title, text, status: 'insufficient data', met: false, candleTime: null, delivery: null, clauses: [] });
      return;
    }
    let decided = cache.outcomes.get(`${c}|${i}`);
    if (!decided) {
      decided = p.outcome(c, i);
      cache.outcomes.set(`${c}|${i}`, decided);
    }
    const candleTime = p.candles[i]!.time;
    const outcome: TConditionOutcome = {
      id: condition.id,
      title,
      text,
      status: decided.met === null ? 'insufficient data' : 'evaluated',
      met: decided.met === true,
      candleTime: new Date(candleTime).toISOString(),
      delivery: null,
      clauses: decided.clauses,
    };
    outcomes.push(outcome);
    if (!outcome.met) return;
    const trigger = decideTrigger(condition.trigger, state, candleTime, now);
    outcome.delivery = trigger.delivery;
    if (trigger.delivery !== 'notified') return;
    notified.push({
      notice: { conditionId: condition.id, market, title, text: `${market}: ${metText(condition.when, decided.clauses, agentTimeframe)}` },
      state: trigger.state,
      disarm: trigger.state.disarmed && !state.disarmed,
      outcome,
    });
  });
  return { outcomes, notified };
}

/** The operator as a met clause says it: what happened. */
const PAST: Partial<Record<TOperator, string>> = {
  'crosses-above': 'crossed above',
  'crosses-below': 'crossed below',
  crosses: 'crossed',
  'rises-by': 'rose by at least',
  'falls-by': 'fell by at least',
  rising: 'rose for',
  falling: 'fell for',
};
const CROSSINGS: readonly TOperator[] = ['crosses-above', 'crosses-below', 'crosses'];

const value = (v: number | null) => (v === null ? 'undefined' : formatLimit(Number(v.toPrecision(6))));

/**
 * A met condition in plain words with the values that decided, e.g. 'RSI (14) on 1 hour crossed
 * below 30 (29.4, before 31.2)': every clause of an 'all of' group, the met ones of an 'any of'.
 */
export function metText(group: TConditionGroup | TSubGroup, clauses: readonly TClauseOutcome[], agentTimeframe: TCandleTimeframe, prefix = ''): string {
  const byPath = new Map(clauses.map((c) => [c.path, c]));
  const parts: string[] = [];
  group.clauses.forEach((item, k) => {
    const path = `${prefix}${k}`;
    if (item.kind === 'group') {
      const inner = metText(item, clauses, agentTimeframe, `${path}.`);
      if (group.join === 'all' || item.clauses.some((_, j) => byPath.get(`${path}.${j}`)?.met === true)) parts.push(item.clauses.length > 1 ? `(${inner})` : inner);
      return;
    }
    const outcome = byPath.get(path);
    if (group.join === 'any' && outcome?.met !== true) return;
    parts.push(clauseWithValues(item, outcome, agentTimeframe));
  });
  return parts.join(group.join === 'all' ? ' and ' : ' or ');
}

function clauseWithValues(clause: TClause, outcome: TClauseOutcome | undefined, agentTimeframe: TCandleTimeframe): string {
  const said = clauseText(clause, agentTimeframe);
  const op = OPERATOR_LABELS[clause.operator];
  const words = PAST[clause.operator] ? said.replace(` ${op} `, ` ${PAST[clause.operator]} `) : said;
  if (!outcome) return words;
  const operands = sidesOf(clause);
  // The sides that are not a number the clause states already, named when there are several.
  const read = outcome.sides.filter((_, s) => operands[s] !== undefined && operands[s]!.indicator !== 'number');
  if (read.length === 0) return words;
  const named = read.length > 1;
  const at = read.map((side) => (named ? `${side.label} ${value(side.at)}` : value(side.at))).join(', ');
  if (!CROSSINGS.includes(clause.operator)) return `${words} (${at})`;
  const before = read.map((side) => (named ? `${side.label} ${value(side.before)}` : value(side.before))).join(', ');
  return `${words} (${at}, before ${before})`;
}
