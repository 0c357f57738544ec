import { z } from 'zod';
import { formatLimit } from './number-format.ts';

/**
 * A template's parameters (SPEC section 3: type, label, description, default, required,
 * validation) and the schema built from them. The one schema serves the server's check of a
 * submitted configuration (the wizard blocks nothing, SPEC section 5) and the runtime, which
 * parses an agent's parameters once per run into a typed object: a parameter renamed in a
 * template breaks the runtime's reading at compile time instead of falling back to a default.
 */

export const PARAMETER_TYPES = ['string', 'number', 'boolean', 'select', 'multi-select', 'slider', 'textarea'] as const;
export type TParameterType = (typeof PARAMETER_TYPES)[number];

/** Longest text a string or textarea parameter may hold. */
export const MAX_TEXT_LENGTH = 2000;
/** SPEC: 'Sliders default to 0-100, step 1'; number inputs default to step 1. */
const SLIDER_DEFAULT_RANGE = { min: 0, max: 100 } as const;
const DEFAULT_STEP = 1;
/** Floating-point slack for the step grid: 2.1 is (2.1 - 1) / 0.1 = 11.000000000000002 steps. */
const STEP_TOLERANCE = 1e-9;

/** Any parameter's value in a submitted configuration: its shape only; what it may hold depends
 * on the template (parametersSchema). */
export const ZParameterValue = z.union([z.string().max(MAX_TEXT_LENGTH), z.number(), z.boolean(), z.array(z.string().max(200)).max(50)], {
  error: `A parameter's value must be text (at most ${formatLimit(MAX_TEXT_LENGTH)} characters), a number, true or false, or a list of at most 50 texts`,
});
export type TParameterValue = z.infer<typeof ZParameterValue>;

/**
 * Outside sources a server may lack (an on-chain source needs WHALE_ALERT_API_KEY), which a
 * parameter can need to do anything, and which of them this server has (the pages' runtime config
 * says so to the browser).
 */
export const PARAMETER_SOURCES = ['onChain'] as const;
export type TParameterSource = (typeof PARAMETER_SOURCES)[number];
export type TParameterSources = Readonly<Record<TParameterSource, boolean>>;
/** Every source there: a template's defaults as SPEC gives them. */
export const ALL_SOURCES: TParameterSources = { onChain: true };
/** What a missing source means for the switch that needs it, for its hint. */
export const MISSING_SOURCE_NOTES: Record<TParameterSource, string> = {
  onChain: 'No on-chain source is configured on this server, so it starts off: turned on, each run reports it as not configured.',
};

export const ZParameterDefinition = z.object({
  type: z.enum(PARAMETER_TYPES),
  label: z.string(),
  description: z.string(),
  default: z.union([z.string(), z.number(), z.boolean(), z.array(z.string()).readonly()]),
  required: z.boolean(),
  /** A switch that does nothing without this source: it starts off where the server has none. */
  needs: z.enum(PARAMETER_SOURCES).optional(),
  validation: z
    .object({
      options: z.array(z.string()).readonly().optional(),
      /** Options shown but not selectable, with the reason (FTX closed in 2022). */
      disabledOptions: z.record(z.string(), z.string()).optional(),
      /** Display labels for options whose id is not what users know (Huobi is ccxt's htx). */
      optionLabels: z.record(z.string(), z.string()).optional(),
      min: z.number().optional(),
      max: z.number().optional(),
      step: z.number().optional(),
      pattern: z.string().optional(),
      /** What `pattern` means, in words, for the error when a value does not match it. */
      patternMessage: z.string().optional(),
    })
    .optional(),
});
export type TParameterDefinition = z.infer<typeof ZParameterDefinition>;
export type TParameterDefinitions = Readonly<Record<string, TParameterDefinition>>;

type TOptionOf<D> = D extends { validation: { options: ReadonlyArray<infer O extends string> } } ? O : string;

/** The value a definition describes: a select's value is one of its options, and so on. */
export type TParameterValueOf<D extends TParameterDefinition> = D['type'] extends 'number' | 'slider'
  ? number
  : D['type'] extends 'boolean'
    ? boolean
    : D['type'] extends 'select'
      ? TOptionOf<D>
      : D['type'] extends 'multi-select'
        ? Array<TOptionOf<D>>
        : string;

/** Parsed parameters: every one present (an optional one missing takes its default). */
export type TParametersOf<P extends TParameterDefinitions> = { -readonly [K in keyof P]: TParameterValueOf<P[K]> };

/**
 * A definition's default as a configuration holds it: a copy, since a list may be changed. A
 * switch needing a source the server lacks starts off (issue 29 item 11, decision 0065): on, it
 * would only report 'not configured' on every run.
 */
export function defaultValue(definition: TParameterDefinition, sources: TParameterSources = ALL_SOURCES): TParameterValue {
  if (definition.type === 'boolean' && definition.needs !== undefined && !sources[definition.needs]) return false;
  const value = definition.default;
  // Array.isArray does not narrow a readonly array out of the union; typeof does.
  return typeof value === 'object' ? [...value] : value;
}

/** '{label} is required' for a missing value, else `message`: zod reports both as a wrong type. */
const typeError = (label: string, message: string) => ({ error: (issue: { input?: unknown }) => (issue.input === undefined ? `${label} is required` : message) });
/** Each parameter reports only its first problem, as a person fixes one thing at a time. */
const first = (message: string) => ({ message, abort: true });

function rangeMessage(min: number | undefined, max: number | undefined): string {
  if (min !== undefined && max !== undefined) return `must be between ${formatLimit(min)} and ${formatLimit(max)}`;
  return min !== undefined ? `must be at least ${formatLimit(min)}` : `must be at most ${formatLimit(max!)}`;
}

/** A number's or slider's range and grid: SPEC's defaults where the template gives none. */
function numberRules(definition: TParameterDefinition): { min?: number; max?: number; step: number; base: number } {
  const rules = definition.validation ?? {};
  const defaults: { min?: number; max?: number } = definition.type === 'slider' ? SLIDER_DEFAULT_RANGE : {};
  const min = rules.min ?? defaults.min;
  const max = rules.max ?? defaults.max;
  return { min, max, step: rules.step ?? DEFAULT_STEP, base: min ?? 0 };
}

const gridMessage = (step: number, base: number) => (step === 1 && Number.isInteger(base) ? 'must be a whole number' : `must be a multiple of ${formatLimit(step)} from ${formatLimit(base)}`);

/**
 * A parameter's rule in words, for the hint under its field ('Must be between 5 and 200, a whole
 * number.'): the same words the server answers with when a value breaks it, so the hint and the
 * error never disagree. Null when the control itself allows nothing else (a switch, a select).
 */
export function parameterRule(definition: TParameterDefinition): string | null {
  const rules = definition.validation ?? {};
  const sentence = (parts: string[]) => {
    const text = parts.join(', ');
    return `${text.charAt(0).toUpperCase()}${text.slice(1)}.`;
  };
  switch (definition.type) {
    case 'string':
    case 'textarea': {
      const parts = [definition.required ? 'required' : null, rules.pattern !== undefined ? (rules.patternMessage ?? `must match ${rules.pattern}`) : null];
      const shown = parts.filter((part): part is string => part !== null);
      return shown.length ? sentence(shown) : null;
    }
    case 'number':
    case 'slider': {
      const { min, max, step, base } = numberRules(definition);
      const range = min === undefined && max === undefined ? [] : [rangeMessage(min, max)];
      return sentence([...range, gridMessage(step, base).replace(/^must be /, '')]);
    }
    case 'multi-select':
      return definition.required ? sentence(['choose at least one']) : null;
    default:
      return null;
  }
}

/** An option as people know it ('HTX (Huobi)' for Huobi, ccxt's htx). */
export const optionLabel = (definition: TParameterDefinition, option: string) => definition.validation?.optionLabels?.[option] ?? option;

/** 'FTX is closed since 2022': options shown in the wizard but no longer usable. */
function disabledReason(definition: TParameterDefinition, option: string): string | null {
  const reason = definition.validation?.disabledOptions?.[option];
  return reason === undefined ? null : `${option} is ${reason.charAt(0).toLowerCase()}${reason.slice(1)}`;
}

/**
 * The schema of one parameter's value, from its definition. Its messages name the parameter by
 * its label, as the field shows it ('Token must be 2 to 10 capital letters (e.g. BTC)'): they are
 * read under the field, in a list of problems, and in a run's failure.
 */
export function parameterSchema(definition: TParameterDefinition): z.ZodType<TParameterValue> {
  const rules = definition.validation ?? {};
  const { label } = definition;
  const named = (rule: string) => `${label} ${rule}`;
  switch (definition.type) {
    case 'string':
    case 'textarea': {
      let text = z.string(typeError(label, named('must be text'))).max(MAX_TEXT_LENGTH, first(named(`must be at most ${formatLimit(MAX_TEXT_LENGTH)} characters`)));
      if (definition.required) text = text.refine((value) => value.trim() !== '', first(named('is required')));
      if (rules.pattern !== undefined) text = text.regex(new RegExp(rules.pattern), first(named(rules.patternMessage ?? `must match ${rules.pattern}`)));
      return text;
    }
    case 'number':
    case 'slider': {
      const { min, max, step, base } = numberRules(definition);
      const onGrid = (value: number) => {
        const steps = (value - base) / step;
        return Math.abs(steps - Math.round(steps)) <= STEP_TOLERANCE;
      };
      return z
        .number(typeError(label, named('must be a number')))
        .refine((value) => (min === undefined || value >= min) && (max === undefined || value <= max), first(named(rangeMessage(min, max))))
        .refine(onGrid, first(named(gridMessage(step, base))));
    }
    case 'boolean':
      return z.boolean(typeError(label, named('must be on or off (true or false)')));
    case 'select': {
      const options: readonly string[] = rules.options ?? [];
      const oneOf = named(`must be one of ${options.map((o) => optionLabel(definition, o)).join(', ')}`);
      return z
        .string(typeError(label, oneOf))
        .refine((value) => options.includes(value), first(oneOf))
        .superRefine((value, ctx) => {
          const reason = disabledReason(definition, value);
          if (reason) ctx.addIssue({ code: 'custom', message: `${label}: ${reason}`, input: value });
        });
    }
    case 'multi-select': {
      const options: readonly string[] = rules.options ?? [];
      const list = options.map((o) => optionLabel(definition, o)).join(', ');
      return z
        .array(
          z.string().refine((option) => options.includes(option), { error: (issue) => named(`must be chosen from ${list}, not '${String(issue.input)}'`), abort: true }),
          typeError(label, named(`must be a list chosen from ${list}`)),
        )
        .superRefine((value, ctx) => {
          const duplicate = value.find((option, i) => value.indexOf(option) !== i);
          const disabled = value.map((option) => disabledReason(definition, option)).find((reason) => reason !== null);
          const message =
            duplicate !== undefined
              ? named(`list ${optionLabel(definition, duplicate)} twice`)
              : disabled
                ? `${label}: ${disabled}`
                : definition.required && value.length === 0
                  ? `Choose at least one of the ${label.toLowerCase()}`
                  : null;
          if (message) ctx.addIssue({ code: 'custom', message, input: value });
        });
    }
  }
}

/**
 * The schema of a template's parameters: each by its definition, an optional one missing taking
 * its default, any other key refused as 'unknown parameter'.
 */
export function parametersSchema<P extends TParameterDefinitions>(definitions: P): z.ZodType<TParametersOf<P>> {
  const shape = Object.fromEntries(
    Object.entries(definitions).map(([key, definition]) => {
      const schema = parameterSchema(definition);
      return [key, definition.required ? schema : schema.default(() => defaultValue(definition))];
    }),
  );
  // The shape is built from the definitions at run time, so zod cannot infer it; TParametersOf
  // derives the same from the definitions' types.
  return z.strictObject(shape) as unknown as z.ZodType<TParametersOf<P>>;
}

/** What is wrong with a template's parameters, one line per parameter with its path
 * (`parameters.token`), in the order they were given; missing ones last. */
export function parameterProblems(error: z.ZodError, given: Readonly<Record<string, unknown>>): Array<{ path: string; message: string }> {
  const keys = Object.keys(given);
  const rank = (key: string) => (keys.includes(key) ? keys.indexOf(key) : keys.length);
  const seen = new Set<string>();
  const problems: Array<{ key: string; message: string }> = [];
  const add = (key: string, message: string) => {
    if (seen.has(key)) return;
    seen.add(key);
    problems.push({ key, message });
  };
  for (const issue of error.issues) {
    if (issue.code === 'unrecognized_keys' && issue.path.length === 0) issue.keys.forEach((key) => add(key, `This template has no parameter '${key}'`));
    else add(issue.path.length > 0 ? String(issue.path[0]) : '', issue.message);
  }
  // A stable sort: missing parameters keep the template's order among themselves.
  return problems.sort((a, b) => rank(a.key) - rank(b.key)).map(({ key, message }) => ({ path: key ? `parameters.${key}` : 'parameters', message }));
}
