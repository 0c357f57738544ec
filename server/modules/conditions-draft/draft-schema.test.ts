import { Ajv } from 'ajv';
import { describe, expect, it } from 'vitest';
import { ZCondition, type TCondition } from '../../../contracts/conditions.ts';
import { conditionFromDraft, DRAFT_JSON_SCHEMA, draftOf, draftSchemaFor } from './draft-schema.ts';

// The provider-facing schema (docs/decisions/0075) must take what the contract takes and refuse
// what it refuses: an assistant held to it can only answer conditions the builder can show.

const ajv = new Ajv({ strict: false });
const fitsEnvelope = ajv.compile(DRAFT_JSON_SCHEMA);
const ID = '00000000-0000-4000-8000-000000000001';
const envelope = (condition: unknown) => ({ understood: true, notUnderstood: null, condition });

const rsi: TCondition['when']['clauses'][number] = { kind: 'clause', left: { indicator: 'rsi', period: 14, timeframe: '1h' }, operator: 'crosses-below', right: { indicator: 'number', value: 30 } };
const VALID: Record<string, TCondition> = {
  'RSI crosses below 30 and close above SMA(200) on 1d': {
    id: ID,
    when: { kind: 'group', join: 'all', clauses: [rsi, { kind: 'clause', left: { indicator: 'close' }, operator: 'above', right: { indicator: 'sma', period: 200, timeframe: '1d' } }] },
    trigger: { mode: 'once-per-close' },
  },
  'between two Bollinger bands, with a cooldown': {
    id: ID,
    when: {
      kind: 'group',
      join: 'any',
      clauses: [
        {
          kind: 'clause',
          left: { indicator: 'close' },
          operator: 'outside',
          lower: { indicator: 'bollinger', band: 'lower', period: 20, k: 2 },
          upper: { indicator: 'bollinger', band: 'upper', period: 20, k: 2 },
        },
      ],
    },
    trigger: { mode: 'once', cooldownMinutes: 60 },
  },
  'a group inside: rises by, rising, MACD and stochastic': {
    id: ID,
    when: {
      kind: 'group',
      join: 'all',
      clauses: [
        { kind: 'clause', left: { indicator: 'volume' }, operator: 'rises-by', percent: 150, candles: 3 },
        {
          kind: 'group',
          join: 'any',
          clauses: [
            { kind: 'clause', left: { indicator: 'ema', period: 9 }, operator: 'rising', candles: 4 },
            { kind: 'clause', left: { indicator: 'macd', line: 'histogram', fast: 12, slow: 26, signal: 9 }, operator: 'crosses-above', right: { indicator: 'number', value: 0 } },
            { kind: 'clause', left: { indicator: 'stochastic', line: 'k', k: 14, d: 3, timeframe: '4h' }, operator: 'below', right: { indicator: 'vwap' } },
          ],
        },
      ],
    },
    trigger: { mode: 'once-per-candle' },
  },
  'change over candles and ATR': {
    id: ID,
    when: { kind: 'group', join: 'all', clauses: [{ kind: 'clause', left: { indicator: 'change', candles: 5 }, operator: 'falls-by', percent: 2.5, candles: 10 }, { kind: 'clause', left: { indicator: 'atr', period: 14 }, operator: 'above', right: { indicator: 'number', value: 3 } }] },
    trigger: { mode: 'once-per-close' },
  },
};

/** Drafts that break one rule each; both schemas must refuse them. */
const INVALID: Record<string, (draft: ReturnType<typeof draftOf>) => void> = {
  'a period below 2': (d) => ((d.when as { clauses: Array<{ left: { period: number } }> }).clauses[0]!.left.period = 1),
  'an unknown indicator': (d) => ((d.when as { clauses: Array<{ left: { indicator: string } }> }).clauses[0]!.left.indicator = 'moon-phase'),
  'between with a single right side': (d) => {
    const clause = (d.when as { clauses: Array<Record<string, unknown>> }).clauses[0]!;
    clause.operator = 'between';
  },
  'a field the operator does not take': (d) => ((d.when as { clauses: Array<Record<string, unknown>> }).clauses[0]!.percent = 5),
  'a field no clause has': (d) => ((d.when as { clauses: Array<Record<string, unknown>> }).clauses[0]!.script = 'alert(1)'),
  'an unknown timeframe': (d) => ((d.when as { clauses: Array<{ left: { timeframe: string } }> }).clauses[0]!.left.timeframe = '2h'),
  'no clauses': (d) => ((d.when as { clauses: unknown[] }).clauses = []),
  'an unknown trigger': (d) => (d.trigger.mode = 'always'),
  'a number on the left side': (d) => ((d.when as { clauses: Array<Record<string, unknown>> }).clauses[0]!.left = { indicator: 'number', value: 3 }),
};

describe('the provider-facing draft schema', () => {
  for (const [name, condition] of Object.entries(VALID)) {
    it(`accepts what ZCondition accepts: ${name}`, () => {
      expect(ZCondition.safeParse(condition).success).toBe(true);
      const draft = draftOf(condition);
      expect(fitsEnvelope(envelope(draft)), JSON.stringify(fitsEnvelope.errors)).toBe(true);
      // And back: the same condition, the id aside.
      const back = conditionFromDraft(draft, ID);
      expect(back).toEqual({ ok: true, condition });
    });
  }

  for (const [name, breakIt] of Object.entries(INVALID)) {
    it(`refuses what ZCondition refuses: ${name}`, () => {
      const draft = structuredClone(draftOf(VALID['RSI crosses below 30 and close above SMA(200) on 1d']!));
      breakIt(draft);
      expect(fitsEnvelope(envelope(draft))).toBe(false);
      expect(conditionFromDraft(draft, ID).ok).toBe(false);
    });
  }

  it('what JSON schema cannot say is refused after it by ZCondition: MACD fast not shorter than slow', () => {
    const draft = draftOf({
      id: ID,
      when: { kind: 'group', join: 'all', clauses: [{ kind: 'clause', left: { indicator: 'macd', line: 'macd', fast: 12, slow: 26, signal: 9 }, operator: 'above', right: { indicator: 'number', value: 0 } }] },
      trigger: { mode: 'once-per-close' },
    });
    ((draft.when as { clauses: Array<{ left: { fast: number } }> }).clauses[0]!.left.fast = 30);
    expect(fitsEnvelope(envelope(draft))).toBe(true);
    const back = conditionFromDraft(draft, ID);
    expect(back.ok).toBe(false);
    expect(!back.ok && back.problems.join()).toMatch(/MACD fast period must be shorter than its slow period/);
  });

  it("Grok's copy differs only by the array-length keywords, whose rules ZCondition keeps", () => {
    const grok = ajv.compile(draftSchemaFor('grok'));
    const none = draftOf(VALID['RSI crosses below 30 and close above SMA(200) on 1d']!);
    (none.when as { clauses: unknown[] }).clauses = [];
    expect(grok(envelope(none))).toBe(true);
    expect(conditionFromDraft(none, ID).ok).toBe(false);
    expect(JSON.stringify(draftSchemaFor('grok'))).toBe(JSON.stringify(DRAFT_JSON_SCHEMA).replaceAll(/,"(minItems|maxItems)":\d+/g, ''));
    for (const provider of ['openai', 'anthropic', 'gemini', 'deepseek', 'llama'] as const) expect(draftSchemaFor(provider)).toBe(DRAFT_JSON_SCHEMA);
  });

  it('a not-understood answer fits, with no condition', () => {
    expect(fitsEnvelope({ understood: false, notUnderstood: 'the moon phase', condition: null })).toBe(true);
    expect(fitsEnvelope({ understood: false })).toBe(false);
  });

  it("fits OpenAI's strict mode: every object lists all its properties as required and allows no others", () => {
    const loose: string[] = [];
    const walk = (node: unknown, path: string) => {
      if (Array.isArray(node)) return node.forEach((item, i) => walk(item, `${path}.${i}`));
      if (!node || typeof node !== 'object') return;
      const schema = node as Record<string, unknown>;
      if (schema.type === 'object') {
        const properties = Object.keys((schema.properties as object | undefined) ?? {});
        const required = (schema.required as string[] | undefined) ?? [];
        if (schema.additionalProperties !== false || properties.some((p) => !required.includes(p))) loose.push(path);
      }
      for (const [key, value] of Object.entries(schema)) walk(value, `${path}.${key}`);
    };
    walk(DRAFT_JSON_SCHEMA, '$');
    expect(loose).toEqual([]);
    // Strict mode takes no oneOf; anyOf only.
    expect(JSON.stringify(DRAFT_JSON_SCHEMA)).not.toContain('"oneOf"');
  });
});
