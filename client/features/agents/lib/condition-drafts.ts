import { TEMPLATE_TIMEFRAMES } from '../../../../contracts/agent-markets.ts';
import type { TParameterValue } from '../../../../contracts/agent-parameters.ts';
import {
  clauseCount,
  conditionTimeframeProblems,
  CONDITION_TIMEFRAMES,
  DEFAULT_TRIGGER_MODE,
  OPERATOR_FIELDS,
  ZConditions,
  type TClause,
  type TCondition,
  type TIndicatorKind,
  type TIndicatorOperand,
  type TOperand,
  type TOperator,
} from '../../../../contracts/conditions.ts';
import type { TCandleTimeframe } from '../../../../contracts/market.ts';
import type { TFieldErrors } from './field-errors.ts';

/**
 * The builder's model of conditions (issue 30, docs/decisions/0071): what a new condition, clause
 * or side starts as, what a side's select offers, what an operator change keeps, and the
 * contract's own schema run on the draft so a message follows the value as it is typed.
 */

/** A v4 UUID: crypto.randomUUID where the page has it (secure contexts only), else made from
 * crypto.getRandomValues, which every context has. */
export function newConditionId(): string {
  if (typeof crypto.randomUUID === 'function') return crypto.randomUUID();
  const bytes = crypto.getRandomValues(new Uint8Array(16));
  bytes[6] = (bytes[6]! & 0x0f) | 0x40;
  bytes[8] = (bytes[8]! & 0x3f) | 0x80;
  const hex = [...bytes].map((b) => b.toString(16).padStart(2, '0')).join('');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}

/** The candle size an agent is evaluated on: its template's timeframe parameter. */
export function agentTimeframeOf(parameters: Readonly<Record<string, TParameterValue>>): TCandleTimeframe {
  const value = parameters.timeframe;
  return (typeof value === 'string' && (TEMPLATE_TIMEFRAMES as Record<string, TCandleTimeframe>)[value]) || '1h';
}

/** The timeframes a side may name: the agent's own (no timeframe stored) and longer ones. */
export const longerTimeframes = (agentTimeframe: TCandleTimeframe) => CONDITION_TIMEFRAMES.filter((t) => CONDITION_TIMEFRAMES.indexOf(t) > CONDITION_TIMEFRAMES.indexOf(agentTimeframe));

/** What a side's select offers, one entry per line of an indicator ('macd:signal'). */
export const OPERAND_CHOICES = [
  { key: 'open', label: 'open' },
  { key: 'high', label: 'high' },
  { key: 'low', label: 'low' },
  { key: 'close', label: 'close' },
  { key: 'volume', label: 'volume' },
  { key: 'change', label: 'change (%) over' },
  { key: 'sma', label: 'SMA' },
  { key: 'ema', label: 'EMA' },
  { key: 'rsi', label: 'RSI' },
  { key: 'atr', label: 'ATR' },
  { key: 'macd:macd', label: 'MACD line' },
  { key: 'macd:signal', label: 'MACD signal' },
  { key: 'macd:histogram', label: 'MACD histogram' },
  { key: 'bollinger:upper', label: 'Bollinger upper' },
  { key: 'bollinger:middle', label: 'Bollinger middle' },
  { key: 'bollinger:lower', label: 'Bollinger lower' },
  { key: 'stochastic:k', label: 'Stochastic %K' },
  { key: 'stochastic:d', label: 'Stochastic %D' },
  { key: 'vwap', label: 'VWAP (session)' },
] as const;
export const NUMBER_CHOICE = { key: 'number', label: 'number' } as const;

/** A side's select key. */
export function operandKey(operand: TOperand): string {
  if (operand.indicator === 'macd' || operand.indicator === 'stochastic') return `${operand.indicator}:${operand.line}`;
  if (operand.indicator === 'bollinger') return `bollinger:${operand.band}`;
  return operand.indicator;
}

/** A side's parameters, as its number fields show them (label as the field's name says it). */
export const OPERAND_PARAMETERS: Partial<Record<TIndicatorKind | 'number', ReadonlyArray<{ field: string; label: string; step?: string }>>> = {
  change: [{ field: 'candles', label: 'candles' }],
  sma: [{ field: 'period', label: 'period' }],
  ema: [{ field: 'period', label: 'period' }],
  rsi: [{ field: 'period', label: 'period' }],
  atr: [{ field: 'period', label: 'period' }],
  macd: [
    { field: 'fast', label: 'fast period' },
    { field: 'slow', label: 'slow period' },
    { field: 'signal', label: 'signal period' },
  ],
  bollinger: [
    { field: 'period', label: 'period' },
    { field: 'k', label: 'width', step: 'any' },
  ],
  stochastic: [
    { field: 'k', label: '%K period' },
    { field: 'd', label: '%D period' },
  ],
  number: [{ field: 'value', label: 'number', step: 'any' }],
};

const DEFAULT_PARAMETERS: Record<string, Record<string, number>> = {
  change: { candles: 1 },
  sma: { period: 20 },
  ema: { period: 20 },
  rsi: { period: 14 },
  atr: { period: 14 },
  macd: { fast: 12, slow: 26, signal: 9 },
  bollinger: { period: 20, k: 2 },
  stochastic: { k: 14, d: 3 },
  number: { value: 0 },
};

/**
 * The side a select key makes from the side it replaces: the same indicator keeps its
 * parameters (MACD line to signal keeps 12, 26, 9) and any side keeps its timeframe.
 */
export function operandFor(key: string, previous: TOperand | undefined): TOperand {
  const [indicator, line] = key.split(':') as [TIndicatorKind | 'number', string | undefined];
  if (indicator === 'number') return { indicator: 'number', value: previous?.indicator === 'number' ? previous.value : 0 };
  const kept = previous && previous.indicator === indicator ? (previous as Record<string, unknown>) : {};
  const parameters = Object.fromEntries(Object.entries(DEFAULT_PARAMETERS[indicator] ?? {}).map(([field, value]) => [field, kept[field] ?? value]));
  const timeframe = previous && previous.indicator !== 'number' && previous.timeframe ? { timeframe: previous.timeframe } : {};
  const named = indicator === 'bollinger' ? { band: line } : indicator === 'macd' || indicator === 'stochastic' ? { line } : {};
  return { indicator, ...named, ...parameters, ...timeframe } as TIndicatorOperand;
}

export const newClause = (): TClause => ({ kind: 'clause', left: { indicator: 'rsi', period: 14 }, operator: 'crosses-below', right: { indicator: 'number', value: 30 } });

export const newCondition = (): TCondition => ({ id: newConditionId(), when: { kind: 'group', join: 'all', clauses: [newClause()] }, trigger: { mode: DEFAULT_TRIGGER_MODE } });

/**
 * A clause under another operator: the fields both read stay as they are; a lower side starts
 * from the right side (and back), the others from a default. The fields the new operator does not
 * read go, as the contract refuses them.
 */
export function withOperator(clause: TClause, operator: TOperator): TClause {
  const fields = OPERATOR_FIELDS[operator];
  const next: TClause = { kind: 'clause', left: clause.left, operator };
  const fallback = {
    right: clause.right ?? clause.lower ?? clause.upper ?? { indicator: 'number', value: 30 },
    lower: clause.lower ?? clause.right ?? { indicator: 'number', value: 30 },
    upper: clause.upper ?? { indicator: 'number', value: 70 },
    percent: clause.percent ?? 5,
    candles: clause.candles ?? 3,
  } as const;
  for (const field of fields) (next as Record<string, unknown>)[field] = fallback[field];
  return next;
}

/**
 * The contract's own messages for the draft (and, given the agent's timeframe, its timeframe rules), by the configuration's path
 * ('conditions.0.when.clauses.1.right.period'), as the server names them. Where a side is
 * refused as a whole (a union with no option matching: the number field emptied), the message
 * goes to the one option the side chose, so it lands on its field.
 */
export function conditionProblems(conditions: readonly TCondition[], agentTimeframe?: TCandleTimeframe): TFieldErrors {
  const result = ZConditions.safeParse(conditions);
  const errors: Record<string, string> = {};
  // What the schema cannot check alone needs the agent's timeframe: none shorter, at most three.
  if (agentTimeframe) for (const { path, message } of conditionTimeframeProblems(conditions, agentTimeframe)) errors[path] ??= message;
  if (result.success) return errors;
  const add = (path: readonly PropertyKey[], message: string) => {
    const key = ['conditions', ...path.map(String)].join('.');
    errors[key] ??= message;
  };
  type Issue = { path: readonly PropertyKey[]; message: string; code?: string; errors?: Issue[][] };
  const walk = (issue: Issue, prefix: readonly PropertyKey[]) => {
    const path = [...prefix, ...issue.path];
    // A union: the branch not refused for its discriminator is the one the person meant.
    const branches = issue.code === 'invalid_union' ? (issue.errors ?? []).filter((b) => b.length > 0 && !b.some((i) => i.code === 'invalid_union' && String(i.path[0]) === 'indicator')) : [];
    if (branches.length === 1) for (const inner of branches[0]!) walk(inner, path);
    else add(path, issue.message);
  };
  for (const issue of result.error.issues) walk(issue as Issue, []);
  return errors;
}

/** How many clauses a condition has, groups included. */
export const clausesIn = (condition: TCondition) => clauseCount(condition.when);

/**
 * A condition's message as a list of problems says it: which condition and, for a clause's
 * field, which clause, numbered as the builder numbers them ('Condition 1, clause 3: SMA period
 * must be a whole number from 2 to 500').
 */
export function conditionErrorLine(path: string, message: string, conditions: readonly TCondition[]): string {
  const match = /^conditions\.(\d+)(?:\.when\.clauses\.(\d+)(?:\.clauses\.(\d+))?)?/.exec(path);
  if (!match) return message;
  const c = Number(match[1]);
  const where = [`Condition ${c + 1}`];
  const condition = conditions[c];
  if (match[2] !== undefined && condition) {
    const top = Number(match[2]);
    const before = clauseCount({ clauses: condition.when.clauses.slice(0, top) });
    const item = condition.when.clauses[top];
    if (item?.kind === 'clause') where.push(`clause ${before + 1}`);
    else if (item && match[3] !== undefined) where.push(`clause ${before + Number(match[3]) + 1}`);
  }
  return `${where.join(', ')}: ${message}`;
}
