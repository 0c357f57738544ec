import { randomUUID } from 'node:crypto';
import type { JSONSchema7 } from 'ai';
import type { TChatProvider } from '../../../contracts/chat.ts';
import {
  BOLLINGER_K_MAX,
  BOLLINGER_K_MIN,
  CANDLES_MAX,
  CANDLES_MIN,
  CLAUSES_MAX,
  CONDITION_TIMEFRAMES,
  COOLDOWN_MINUTES_MAX,
  DEFAULT_TRIGGER_MODE,
  JOINS,
  NUMBER_ABS_MAX,
  PERCENT_MAX,
  PERCENT_MIN,
  PERIOD_MAX,
  PERIOD_MIN,
  PRICE_FIELDS,
  TRIGGER_MODES,
  ZCondition,
  type TCondition,
  type TOperand,
  type TOperator,
} from '../../../contracts/conditions.ts';

/**
 * The draft envelope the assistant answers with (docs/decisions/0075), as a JSON schema every
 * provider's structured output takes: OpenAI's strict mode (every property required,
 * `additionalProperties: false`, an optional field a nullable one), Anthropic's tool
 * `input_schema`, Gemini's `responseJsonSchema`, and the prompt's copy for DeepSeek's JSON mode.
 *
 * Hand-mapped from contracts/conditions.ts (z.toJSONSchema writes optional fields as absent,
 * which strict mode refuses, and the clause's per-operator fields as one loose object): a clause
 * is one of four shapes by its operator (OPERATOR_FIELDS), an operand one of its indicator's
 * shapes with its bounds. What JSON schema cannot say (MACD fast < slow, 10 clauses counted
 * across groups, a timeframe not shorter than the agent's) ZCondition and the timeframe rules
 * check after, as they check every condition; `conditionFromDraft` is the only way out of here.
 */

const int = (minimum: number, maximum: number): JSONSchema7 => ({ type: 'integer', minimum, maximum });
const num = (minimum: number, maximum: number): JSONSchema7 => ({ type: 'number', minimum, maximum });
const oneOf = (...values: readonly string[]): JSONSchema7 => ({ type: 'string', enum: [...values] });
const nullable = (schema: JSONSchema7): JSONSchema7 => ({ anyOf: [schema, { type: 'null' }] });
/** Strict mode's object: every property required, nothing else allowed. */
const object = (properties: Record<string, JSONSchema7>, description?: string): JSONSchema7 => ({
  type: 'object',
  ...(description ? { description } : {}),
  properties,
  required: Object.keys(properties),
  additionalProperties: false,
});
type DefName = 'indicator' | 'operand' | 'clause' | 'group';
const ref = (name: DefName): JSONSchema7 => ({ $ref: `#/$defs/${name}` });

const timeframe = nullable({ ...oneOf(...CONDITION_TIMEFRAMES), description: "null: the agent's own timeframe" });
const period = int(PERIOD_MIN, PERIOD_MAX);
const candles = int(CANDLES_MIN, CANDLES_MAX);

/** Comparisons with one right side; ranges with two; moves by a percent; trends over candles. */
const COMPARE = ['crosses-above', 'crosses-below', 'crosses', 'above', 'below'] as const satisfies readonly TOperator[];
const RANGE = ['between', 'outside'] as const satisfies readonly TOperator[];
const MOVE = ['rises-by', 'falls-by'] as const satisfies readonly TOperator[];
const TREND = ['rising', 'falling'] as const satisfies readonly TOperator[];

const clauseShape = (operators: readonly TOperator[], fields: Record<string, JSONSchema7>) =>
  object({ kind: oneOf('clause'), left: ref('indicator'), operator: oneOf(...operators), ...fields });

const DEFS: Record<DefName, JSONSchema7> = {
  /** What a side reads (the left side, and a right side that is not a number). */
  indicator: {
    anyOf: [
      object({ indicator: oneOf(...PRICE_FIELDS), timeframe }),
      object({ indicator: oneOf('change'), candles, timeframe }, "The close's change in % over the last `candles` candles"),
      object({ indicator: oneOf('sma', 'ema', 'rsi', 'atr'), period, timeframe }),
      object({ indicator: oneOf('macd'), line: oneOf('macd', 'signal', 'histogram'), fast: period, slow: period, signal: period, timeframe }, 'fast must be shorter than slow'),
      object({ indicator: oneOf('bollinger'), band: oneOf('upper', 'middle', 'lower'), period, k: num(BOLLINGER_K_MIN, BOLLINGER_K_MAX), timeframe }),
      object({ indicator: oneOf('stochastic'), line: oneOf('k', 'd'), k: period, d: period, timeframe }),
      object({ indicator: oneOf('vwap'), timeframe }, "The volume-weighted average price since the UTC day's session began"),
    ],
  },
  /** A right side: an indicator or a number. */
  operand: { anyOf: [object({ indicator: oneOf('number'), value: num(-NUMBER_ABS_MAX, NUMBER_ABS_MAX) }), ref('indicator')] },
  clause: {
    anyOf: [
      clauseShape(COMPARE, { right: ref('operand') }),
      clauseShape(RANGE, { lower: ref('operand'), upper: ref('operand') }),
      clauseShape(MOVE, { percent: num(PERCENT_MIN, PERCENT_MAX), candles }),
      clauseShape(TREND, { candles }),
    ],
  },
  group: object({ kind: oneOf('group'), join: oneOf(...JOINS), clauses: { type: 'array', items: ref('clause'), minItems: 1, maxItems: CLAUSES_MAX } }),
};

/** The envelope: understood and a condition, or not understood and what was not. */
export const DRAFT_SCHEMA_NAME = 'condition_draft';
export const DRAFT_SCHEMA_DESCRIPTION = 'A market alert condition drafted from the words of its owner, or what could not be understood in them.';
export const DRAFT_JSON_SCHEMA: JSONSchema7 = {
  ...object({
    understood: { type: 'boolean', description: 'false when any part of the words cannot be mapped to prices, indicators and operators' },
    notUnderstood: nullable({ type: 'string', description: 'the words that could not be mapped, quoted from the text; null when understood' }),
    condition: nullable(
      object({
        when: object({
          kind: oneOf('group'),
          join: oneOf(...JOINS),
          clauses: { type: 'array', items: { anyOf: [ref('clause'), ref('group')] }, minItems: 1, maxItems: CLAUSES_MAX },
        }),
        trigger: object({
          mode: { ...oneOf(...TRIGGER_MODES), description: `${DEFAULT_TRIGGER_MODE} unless the words ask otherwise` },
          cooldownMinutes: nullable(int(0, COOLDOWN_MINUTES_MAX)),
        }),
      }),
    ),
  }),
  $defs: DEFS,
};

/** Length keywords, which xAI's structured outputs are reported to refuse (a 5xx) rather than ignore. */
const LENGTH_KEYWORDS = new Set(['minItems', 'maxItems', 'minLength', 'maxLength']);
function withoutKeywords(node: unknown, keywords: ReadonlySet<string>): unknown {
  if (Array.isArray(node)) return node.map((item) => withoutKeywords(item, keywords));
  if (!node || typeof node !== 'object') return node;
  return Object.fromEntries(Object.entries(node).flatMap(([key, value]) => (keywords.has(key) && typeof value === 'number' ? [] : [[key, withoutKeywords(value, keywords)]])));
}

/**
 * The schema as each provider is sent it: the whole of it, but to xAI (Grok) without the
 * array-length keywords (at least one clause, at most ten), which ZCondition checks after anyway.
 */
export function draftSchemaFor(provider: TChatProvider): JSONSchema7 {
  return provider === 'grok' ? (withoutKeywords(DRAFT_JSON_SCHEMA, LENGTH_KEYWORDS) as JSONSchema7) : DRAFT_JSON_SCHEMA;
}

/** The condition as the envelope carries it: no id, nulls for what is absent. */
export type DraftCondition = { when: unknown; trigger: { mode: unknown; cooldownMinutes: unknown } };
export type DraftEnvelope = { understood: boolean; notUnderstood: string | null; condition: DraftCondition | null };

/** Nulls the envelope uses for absent fields, dropped (ZCondition's strict objects take no null). */
function withoutNulls(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(withoutNulls);
  if (value && typeof value === 'object') return Object.fromEntries(Object.entries(value).flatMap(([k, v]) => (v === null ? [] : [[k, withoutNulls(v)]])));
  return value;
}

/**
 * The draft's condition as the contract's: a fresh id, nulls dropped, checked by ZCondition
 * (the one schema). Whatever the assistant wrote, only a condition that parses comes out.
 */
export function conditionFromDraft(draft: unknown, id: string = randomUUID()): { ok: true; condition: TCondition } | { ok: false; problems: string[] } {
  const condition = draft && typeof draft === 'object' ? (draft as Record<string, unknown>) : {};
  const unknown = Object.keys(condition).filter((key) => key !== 'when' && key !== 'trigger');
  if (unknown.length > 0) return { ok: false, problems: unknown.map((key) => `${key}: not a field of a drafted condition`) };
  const trigger = withoutNulls(condition.trigger);
  const parsed = ZCondition.safeParse({
    id,
    when: withoutNulls(condition.when),
    trigger: trigger && typeof trigger === 'object' && Object.keys(trigger).length > 0 ? trigger : { mode: DEFAULT_TRIGGER_MODE },
  });
  if (parsed.success) return { ok: true, condition: parsed.data };
  return { ok: false, problems: parsed.error.issues.map((issue) => `${issue.path.join('.')}: ${issue.message}`) };
}

/** A contract condition as the envelope carries it (the prompt's examples, and the schema's tests). */
export function draftOf(condition: TCondition): DraftCondition {
  const side = (operand: TOperand | undefined) => (operand === undefined || operand.indicator === 'number' ? operand : { ...operand, timeframe: operand.timeframe ?? null });
  const clause = (item: TCondition['when']['clauses'][number]): unknown =>
    item.kind === 'group'
      ? { ...item, clauses: item.clauses.map(clause) }
      : Object.fromEntries(Object.entries({ ...item, left: side(item.left), right: side(item.right), lower: side(item.lower), upper: side(item.upper) }).filter(([, v]) => v !== undefined));
  return {
    when: { ...condition.when, clauses: condition.when.clauses.map(clause) },
    trigger: { mode: condition.trigger.mode, cooldownMinutes: condition.trigger.cooldownMinutes ?? null },
  };
}
