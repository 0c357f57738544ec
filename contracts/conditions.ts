import { z } from 'zod';
import { formatLimit } from './number-format.ts';
import { CANDLE_TIMEFRAMES, type TCandleTimeframe } from './market.ts';

/**
 * Conditions of the owner's own (issue 30, docs/decisions/0071): clauses `left operator right`
 * over prices and indicators, on the agent's timeframe or a longer one, joined by "all of" or
 * "any of" (a group inside the top group allowed once), with a trigger that says how often the
 * condition may speak. One schema for the builder, the API, the runtime and the test on history;
 * what a run records of a condition (ZConditionOutcome) is here too, and so are its plain words,
 * which the details, the notification, the email, the channels and the webhook all show.
 */

// --- Bounds ----------------------------------------------------------------------------------

/** Conditions one agent may have. */
export const CONDITIONS_MAX = 10;
/** Clauses one condition may have, counted across its groups. */
export const CLAUSES_MAX = 10;
/** Distinct timeframes an agent's conditions may read (the agent's own counts when a side uses it). */
export const CONDITION_TIMEFRAMES_MAX = 3;
/** An indicator's period (SMA, EMA, RSI, ATR, MACD's, Bollinger's, Stochastic's). */
export const PERIOD_MIN = 2;
export const PERIOD_MAX = 500;
/** "over N candles", "within N candles", "for N candles". */
export const CANDLES_MIN = 1;
export const CANDLES_MAX = 500;
/** Bollinger's width in standard deviations. */
export const BOLLINGER_K_MIN = 0.1;
export const BOLLINGER_K_MAX = 10;
/** "rises by at least X%". */
export const PERCENT_MIN = 0.01;
export const PERCENT_MAX = 1000;
/** A number on the right side; beyond it is a typo, not a price. */
export const NUMBER_ABS_MAX = 1e12;
/** Longest time between two notifications of one condition (a week), in minutes. */
export const COOLDOWN_MINUTES_MAX = 7 * 24 * 60;
export const CONDITION_NAME_MAX = 100;

// --- Timeframes ------------------------------------------------------------------------------

export const CONDITION_TIMEFRAMES = CANDLE_TIMEFRAMES;
export const TIMEFRAME_LABELS: Record<TCandleTimeframe, string> = {
  '1m': '1 minute',
  '5m': '5 minutes',
  '15m': '15 minutes',
  '30m': '30 minutes',
  '1h': '1 hour',
  '4h': '4 hours',
  '1d': '1 day',
  '1w': '1 week',
};
const ZTimeframe = z.enum(CONDITION_TIMEFRAMES, `Timeframe must be one of ${CONDITION_TIMEFRAMES.map((t) => TIMEFRAME_LABELS[t]).join(', ')}`);

// --- Operands --------------------------------------------------------------------------------

const whole = (label: string, min: number, max: number) => {
  const rule = `${label} must be a whole number from ${formatLimit(min)} to ${formatLimit(max)}`;
  return z.number(rule).int(rule).min(min, rule).max(max, rule);
};
const decimal = (label: string, min: number, max: number) => {
  const rule = `${label} must be a number from ${formatLimit(min)} to ${formatLimit(max)}`;
  return z.number(rule).min(min, rule).max(max, rule);
};
const period = (label: string) => whole(label, PERIOD_MIN, PERIOD_MAX);

export const PRICE_FIELDS = ['open', 'high', 'low', 'close', 'volume'] as const;
export type TPriceField = (typeof PRICE_FIELDS)[number];

/**
 * What a side reads, candle by candle. `timeframe` absent: the agent's own timeframe (its
 * template's timeframe parameter). The indicators are the product's (server/modules/market/
 * indicators.ts, TA-Lib's definitions), plus ATR (Wilder) and VWAP over the UTC day's session.
 */
const timeframe = { timeframe: ZTimeframe.optional() };
export const ZIndicatorOperand = z.discriminatedUnion(
  'indicator',
  [
    z.object({ indicator: z.enum(PRICE_FIELDS), ...timeframe }).strict(),
    /** The close's change in % over the last `candles` candles: close[i] / close[i - candles] - 1. */
    z.object({ indicator: z.literal('change'), candles: whole('Change over', CANDLES_MIN, CANDLES_MAX), ...timeframe }).strict(),
    z.object({ indicator: z.literal('sma'), period: period('SMA period'), ...timeframe }).strict(),
    z.object({ indicator: z.literal('ema'), period: period('EMA period'), ...timeframe }).strict(),
    z.object({ indicator: z.literal('rsi'), period: period('RSI period'), ...timeframe }).strict(),
    z.object({ indicator: z.literal('atr'), period: period('ATR period'), ...timeframe }).strict(),
    z
      .object({
        indicator: z.literal('macd'),
        line: z.enum(['macd', 'signal', 'histogram'], 'MACD line must be the MACD line, the signal or the histogram'),
        fast: period('MACD fast period'),
        slow: period('MACD slow period'),
        signal: period('MACD signal period'),
        ...timeframe,
      })
      .strict()
      .refine((m) => m.fast < m.slow, { message: 'MACD fast period must be shorter than its slow period', path: ['fast'] }),
    z
      .object({
        indicator: z.literal('bollinger'),
        band: z.enum(['upper', 'middle', 'lower'], 'Bollinger band must be upper, middle or lower'),
        period: period('Bollinger period'),
        k: decimal('Bollinger width', BOLLINGER_K_MIN, BOLLINGER_K_MAX),
        ...timeframe,
      })
      .strict(),
    z
      .object({
        indicator: z.literal('stochastic'),
        line: z.enum(['k', 'd'], 'Stochastic line must be %K or %D'),
        k: period('Stochastic %K period'),
        d: period('Stochastic %D period'),
        ...timeframe,
      })
      .strict(),
    /** The volume-weighted average of the typical price (high + low + close) / 3 since the session
     * began: the UTC day (a daily or longer candle is its own session). */
    z.object({ indicator: z.literal('vwap'), ...timeframe }).strict(),
  ],
  { error: 'Choose what this side reads: a price, the change, or one of the indicators' },
);
export type TIndicatorOperand = z.infer<typeof ZIndicatorOperand>;
export type TIndicatorKind = TIndicatorOperand['indicator'];

export const ZNumberOperand = z
  .object({
    indicator: z.literal('number'),
    value: decimal('The number', -NUMBER_ABS_MAX, NUMBER_ABS_MAX),
  })
  .strict();
/** A right side: an indicator, or a number. */
export const ZOperand = z.union([ZNumberOperand, ZIndicatorOperand], { error: 'Choose what this side reads: a number, a price, the change, or one of the indicators' });
export type TOperand = z.infer<typeof ZOperand>;

// --- Clauses and groups ----------------------------------------------------------------------

export const OPERATORS = [
  'crosses-above',
  'crosses-below',
  'crosses',
  'above',
  'below',
  'between',
  'outside',
  'rises-by',
  'falls-by',
  'rising',
  'falling',
] as const;
export type TOperator = (typeof OPERATORS)[number];

/** The operator as a clause reads ("RSI (14) crosses below 30"). */
export const OPERATOR_LABELS: Record<TOperator, string> = {
  'crosses-above': 'crosses above',
  'crosses-below': 'crosses below',
  crosses: 'crosses',
  above: 'is above',
  below: 'is below',
  between: 'is between',
  outside: 'is outside',
  'rises-by': 'rises by at least',
  'falls-by': 'falls by at least',
  rising: 'is rising for',
  falling: 'is falling for',
};

/** Which of a clause's fields each operator uses; the others must be absent. */
export const OPERATOR_FIELDS: Record<TOperator, ReadonlyArray<'right' | 'lower' | 'upper' | 'percent' | 'candles'>> = {
  'crosses-above': ['right'],
  'crosses-below': ['right'],
  crosses: ['right'],
  above: ['right'],
  below: ['right'],
  between: ['lower', 'upper'],
  outside: ['lower', 'upper'],
  'rises-by': ['percent', 'candles'],
  'falls-by': ['percent', 'candles'],
  rising: ['candles'],
  falling: ['candles'],
};
const FIELD_NAMES = { right: 'a right side', lower: 'a lower side', upper: 'an upper side', percent: 'a percent', candles: 'a number of candles' } as const;

/**
 * `left operator right`. One shape for every operator, so the builder keeps a clause's fields
 * when its operator changes; which fields the operator reads is OPERATOR_FIELDS, checked here.
 * - crossings read the candle decided and the one before: crosses above is
 *   left[i-1] <= right[i-1] and left[i] > right[i] (below mirrored; crosses is either);
 * - between / outside: lower <= left <= upper (outside: left < lower or left > upper);
 * - rises by / falls by at least `percent` within `candles`: left[i] against the lowest (rises)
 *   or highest (falls) of left[i-candles..i-1];
 * - rising / falling for `candles`: each of the last `candles` steps up (down), strictly.
 * A side that is not defined (warm-up, NaN) makes the clause undecided, never met.
 */
export const ZClause = z
  .object({
    kind: z.literal('clause'),
    left: ZIndicatorOperand,
    operator: z.enum(OPERATORS, `Operator must be one of ${OPERATORS.map((o) => OPERATOR_LABELS[o]).join(', ')}`),
    right: ZOperand.optional(),
    lower: ZOperand.optional(),
    upper: ZOperand.optional(),
    percent: decimal('The percent', PERCENT_MIN, PERCENT_MAX).optional(),
    candles: whole('The candles', CANDLES_MIN, CANDLES_MAX).optional(),
  })
  .strict()
  .superRefine((clause, ctx) => {
    const used = OPERATOR_FIELDS[clause.operator];
    for (const field of ['right', 'lower', 'upper', 'percent', 'candles'] as const) {
      const present = clause[field] !== undefined;
      if (used.includes(field) && !present) ctx.addIssue({ code: 'custom', path: [field], message: `'${OPERATOR_LABELS[clause.operator]}' needs ${FIELD_NAMES[field]}` });
      if (!used.includes(field) && present) ctx.addIssue({ code: 'custom', path: [field], message: `'${OPERATOR_LABELS[clause.operator]}' takes no ${FIELD_NAMES[field].replace(/^an? /, '')}` });
    }
  });
export type TClause = z.infer<typeof ZClause>;

export const JOINS = ['all', 'any'] as const;
export type TJoin = (typeof JOINS)[number];
export const JOIN_LABELS: Record<TJoin, string> = { all: 'all of', any: 'any of' };
const ZJoin = z.enum(JOINS, "Join must be 'all of' or 'any of'");

/** A group inside the top group: clauses only. */
export const ZSubGroup = z
  .object({ kind: z.literal('group'), join: ZJoin, clauses: z.array(ZClause).min(1, 'A group needs at least one clause') })
  .strict();
export type TSubGroup = z.infer<typeof ZSubGroup>;

/** The top group: clauses and groups of clauses. */
export const ZConditionGroup = z
  .object({
    kind: z.literal('group'),
    join: ZJoin,
    clauses: z.array(z.discriminatedUnion('kind', [ZClause, ZSubGroup], { error: 'Each item must be a clause or a group of clauses' })).min(1, 'A condition needs at least one clause'),
  })
  .strict()
  .refine((group) => clauseCount(group) <= CLAUSES_MAX, `A condition may have at most ${CLAUSES_MAX} clauses`);
export type TConditionGroup = z.infer<typeof ZConditionGroup>;

// --- Triggers --------------------------------------------------------------------------------

/**
 * How often a condition may speak:
 * - 'once': the first time it is met it notifies, then disarms itself (Re-arm in the details);
 * - 'once-per-candle': evaluated on the latest candle, forming or not; at most once per candle;
 * - 'once-per-close': evaluated on closed candles only, at most once per candle (the default).
 * On history every candle is closed, so the last two read alike there.
 */
export const TRIGGER_MODES = ['once', 'once-per-candle', 'once-per-close'] as const;
export type TTriggerMode = (typeof TRIGGER_MODES)[number];
export const TRIGGER_MODE_LABELS: Record<TTriggerMode, string> = {
  once: 'Only once',
  'once-per-candle': 'Once per candle',
  'once-per-close': 'Once per candle close',
};
export const DEFAULT_TRIGGER_MODE: TTriggerMode = 'once-per-close';

export const ZTrigger = z
  .object({
    mode: z.enum(TRIGGER_MODES, `Trigger must be one of ${TRIGGER_MODES.map((m) => TRIGGER_MODE_LABELS[m]).join(', ')}`),
    /** The instant it expires (ISO, UTC); the builder shows and takes it in the owner's zone. */
    expiresAt: z.iso.datetime({ offset: true, error: 'Expiry must be a date and time' }).optional(),
    /** Least minutes between two notifications of this condition; 0 or absent: none. */
    cooldownMinutes: whole('Cooldown', 0, COOLDOWN_MINUTES_MAX).optional(),
  })
  .strict();
export type TTrigger = z.infer<typeof ZTrigger>;

// --- Conditions ------------------------------------------------------------------------------

export const ZCondition = z
  .object({
    /** Stable across edits: the condition's trigger state (armed, last notified, snoozed) is kept by it. */
    id: z.uuid('A condition id must be a UUID'),
    /** Optional; its plain words stand in where it has none. */
    name: z.string('Name must be text').trim().max(CONDITION_NAME_MAX, `Name must be at most ${CONDITION_NAME_MAX} characters`).optional(),
    when: ZConditionGroup,
    trigger: ZTrigger,
  })
  .strict();
export type TCondition = z.infer<typeof ZCondition>;

/** An agent's conditions (config.conditions). The bounds that need the agent's own timeframe are
 * checked with it (conditionTimeframeProblems). */
export const ZConditions = z
  .array(ZCondition)
  .max(CONDITIONS_MAX, `An agent may have at most ${CONDITIONS_MAX} conditions`)
  .refine((list) => new Set(list.map((c) => c.id)).size === list.length, 'Each condition must have its own id');

/** Every clause of a group, depth first, with its path in the group ('0', '2.1'). */
export function clausesOf(group: TConditionGroup | TSubGroup): Array<{ path: string; clause: TClause }> {
  return group.clauses.flatMap((item, i) =>
    item.kind === 'clause' ? [{ path: String(i), clause: item }] : item.clauses.map((clause, j) => ({ path: `${i}.${j}`, clause })),
  );
}

/** Typed by shape, not as TConditionGroup, so the group's schema can check it without a circular type. */
export function clauseCount(group: { clauses: ReadonlyArray<{ kind: 'clause' } | { kind: 'group'; clauses: readonly unknown[] }> }): number {
  return group.clauses.reduce((n, item) => n + (item.kind === 'clause' ? 1 : item.clauses.length), 0);
}

/** Every side a clause reads, in the order plain words say them. */
export function sidesOf(clause: TClause): TOperand[] {
  return [clause.left, ...OPERATOR_FIELDS[clause.operator].flatMap((field) => (field === 'right' || field === 'lower' || field === 'upper' ? [clause[field]!] : []))];
}

/** The timeframes conditions read: an operand without one reads the agent's own. */
export function conditionTimeframes(conditions: readonly TCondition[], agentTimeframe: TCandleTimeframe): TCandleTimeframe[] {
  const found = new Set<TCandleTimeframe>();
  for (const condition of conditions)
    for (const { clause } of clausesOf(condition.when))
      for (const side of sidesOf(clause)) if (side.indicator !== 'number') found.add(side.timeframe ?? agentTimeframe);
  return CONDITION_TIMEFRAMES.filter((t) => found.has(t));
}

/**
 * What the schema cannot check alone, as 400 problems with their paths: at most
 * CONDITION_TIMEFRAMES_MAX timeframes, and none shorter than the agent's (an agent is evaluated
 * once per candle of its own timeframe; a shorter one would skip most of its candles).
 */
export function conditionTimeframeProblems(conditions: readonly TCondition[], agentTimeframe: TCandleTimeframe): Array<{ path: string; message: string }> {
  const problems: Array<{ path: string; message: string }> = [];
  const rank = (t: TCandleTimeframe) => CONDITION_TIMEFRAMES.indexOf(t);
  conditions.forEach((condition, c) => {
    for (const { path, clause } of clausesOf(condition.when)) {
      const fields = ['left', ...OPERATOR_FIELDS[clause.operator].filter((f) => f === 'right' || f === 'lower' || f === 'upper')] as const;
      for (const field of fields) {
        const side = clause[field];
        if (side && side.indicator !== 'number' && side.timeframe !== undefined && rank(side.timeframe) < rank(agentTimeframe)) {
          problems.push({
            path: `conditions.${c}.when.clauses.${path.replace('.', '.clauses.')}.${field}.timeframe`,
            message: `A timeframe must be the agent's (${TIMEFRAME_LABELS[agentTimeframe]}) or longer`,
          });
        }
      }
    }
  });
  const used = conditionTimeframes(conditions, agentTimeframe);
  if (used.length > CONDITION_TIMEFRAMES_MAX) {
    problems.push({ path: 'conditions', message: `Conditions may read at most ${CONDITION_TIMEFRAMES_MAX} timeframes; these read ${used.length} (${used.map((t) => TIMEFRAME_LABELS[t]).join(', ')})` });
  }
  return problems;
}

// --- Plain words -----------------------------------------------------------------------------

const INDICATOR_NAMES: Record<TIndicatorKind, string> = {
  open: 'open',
  high: 'high',
  low: 'low',
  close: 'close',
  volume: 'volume',
  change: 'change',
  sma: 'SMA',
  ema: 'EMA',
  rsi: 'RSI',
  atr: 'ATR',
  macd: 'MACD',
  bollinger: 'Bollinger',
  stochastic: 'Stochastic',
  vwap: 'VWAP',
};

/** A side as a person reads it: 'RSI (14) on 1 hour', 'MACD signal (12, 26, 9)', '30'. The
 * agent's own timeframe is left unsaid, unless `agentTimeframe` is given. */
export function operandText(operand: TOperand, agentTimeframe?: TCandleTimeframe): string {
  if (operand.indicator === 'number') return formatLimit(operand.value);
  const on = operand.timeframe ?? agentTimeframe;
  const suffix = on === undefined ? '' : ` on ${TIMEFRAME_LABELS[on]}`;
  return `${operandName(operand)}${suffix}`;
}

/** A side without its timeframe. */
export function operandName(operand: TIndicatorOperand): string {
  switch (operand.indicator) {
    case 'change':
      return `change over ${operand.candles} candle${operand.candles === 1 ? '' : 's'} (%)`;
    case 'sma':
    case 'ema':
    case 'rsi':
    case 'atr':
      return `${INDICATOR_NAMES[operand.indicator]} (${operand.period})`;
    case 'macd':
      return `MACD ${operand.line === 'macd' ? 'line' : operand.line} (${operand.fast}, ${operand.slow}, ${operand.signal})`;
    case 'bollinger':
      return `Bollinger ${operand.band} (${operand.period}, ${formatLimit(operand.k)})`;
    case 'stochastic':
      return `Stochastic %${operand.line.toUpperCase()} (${operand.k}, ${operand.d})`;
    default:
      return INDICATOR_NAMES[operand.indicator];
  }
}

/** 'RSI (14) on 1 hour crosses below 30'. */
export function clauseText(clause: TClause, agentTimeframe?: TCandleTimeframe): string {
  const side = (operand: TOperand | undefined) => (operand === undefined ? '?' : operandText(operand, agentTimeframe));
  const left = side(clause.left);
  const op = OPERATOR_LABELS[clause.operator];
  const candles = (n: number | undefined) => `${n ?? '?'} candle${n === 1 ? '' : 's'}`;
  switch (clause.operator) {
    case 'between':
    case 'outside':
      return `${left} ${op} ${side(clause.lower)} and ${side(clause.upper)}`;
    case 'rises-by':
    case 'falls-by':
      return `${left} ${op} ${clause.percent === undefined ? '?' : formatLimit(clause.percent)}% within ${candles(clause.candles)}`;
    case 'rising':
    case 'falling':
      return `${left} ${op} ${candles(clause.candles)}`;
    default:
      return `${left} ${op} ${side(clause.right)}`;
  }
}

/** A whole condition in words: 'RSI (14) on 1 hour crosses below 30 and close is above EMA (200) on 1 day';
 * a group inside reads in parentheses. */
export function conditionText(group: TConditionGroup | TSubGroup, agentTimeframe?: TCandleTimeframe): string {
  const joiner = group.join === 'all' ? ' and ' : ' or ';
  return group.clauses
    .map((item) => (item.kind === 'clause' ? clauseText(item, agentTimeframe) : item.clauses.length === 1 ? conditionText(item, agentTimeframe) : `(${conditionText(item, agentTimeframe)})`))
    .join(joiner);
}

/** What a condition is called: its name, else its plain words. */
export const conditionTitle = (condition: Pick<TCondition, 'name' | 'when'>, agentTimeframe?: TCandleTimeframe) =>
  condition.name && condition.name.trim() !== '' ? condition.name : conditionText(condition.when, agentTimeframe);

/** A trigger in words: 'Once per candle close, at most every 30 minutes, until Dec 1, 2026 09:00 (Europe/Paris)' is the
 * builder's business (it knows the zone); this is the part without the expiry. */
export function triggerText(trigger: TTrigger): string {
  const cooldown = trigger.cooldownMinutes ? `, at most every ${durationText(trigger.cooldownMinutes)}` : '';
  return `${TRIGGER_MODE_LABELS[trigger.mode]}${cooldown}`;
}

export function durationText(minutes: number): string {
  if (minutes % (24 * 60) === 0) return `${minutes / (24 * 60)} day${minutes === 24 * 60 ? '' : 's'}`;
  if (minutes % 60 === 0) return `${minutes / 60} hour${minutes === 60 ? '' : 's'}`;
  return `${minutes} minute${minutes === 1 ? '' : 's'}`;
}

// --- Requests beyond the config --------------------------------------------------------------

/** POST /api/agents/:id/conditions/:conditionId/snooze: a preset (tomorrow 09:00 in the owner's zone) or a chosen time. */
export const SNOOZE_PRESETS = ['1h', '4h', 'tomorrow'] as const;
export type TSnoozePreset = (typeof SNOOZE_PRESETS)[number];
export const SNOOZE_PRESET_LABELS: Record<TSnoozePreset, string> = { '1h': '1 hour', '4h': '4 hours', tomorrow: 'Until tomorrow 09:00' };
export const ZSnoozeRequest = z.union(
  [
    z.object({ preset: z.enum(SNOOZE_PRESETS, 'Snooze must be 1 hour, 4 hours or until tomorrow 09:00') }).strict(),
    z.object({ until: z.iso.datetime({ offset: true, error: 'Snooze until must be a date and time' }) }).strict(),
  ],
  { error: 'Send a snooze preset or a time to snooze until' },
);
export type TSnoozeRequest = z.infer<typeof ZSnoozeRequest>;
export const ZConditionParams = z.object({ id: z.uuid('Agent id must be a UUID'), conditionId: z.uuid('Condition id must be a UUID') });

/** The trigger state the details show beside each condition. */
export const ZConditionState = z.object({
  conditionId: z.string(),
  /** 'once' conditions that fired: disarmed until re-armed. */
  disarmed: z.boolean(),
  snoozedUntil: z.string().nullable(),
  lastNotifiedAt: z.string().nullable(),
});
export type TConditionState = z.infer<typeof ZConditionState>;

/** Longest text "Describe it" takes. */
export const DESCRIBE_TEXT_MAX = 1000;
