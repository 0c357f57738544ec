import { findTemplate, WEEKDAYS, type TAgentConfig, type TParameterDefinition, type TParameterValue } from '../../../contracts/agents.ts';
import type { ErrorDetail } from '../../lib/errors.ts';

/**
 * The contract (ZAgentConfig) only checks a configuration's shape; what each parameter may hold
 * depends on the template, so it is checked here, on create and on every config change. The
 * wizard does not block bad values (SPEC section 5), so the server is the only gate.
 *
 * Pure: returns every problem found (empty when valid) so a client can mark all fields at once.
 * Paths are relative to the config (`parameters.token`, `schedule.activeHours`), plus
 * `templateId` when the template does not exist.
 */

/** Longest text a string or textarea parameter may hold (the contract's own limit too). */
export const MAX_TEXT_LENGTH = 2000;
/** SPEC: 'Sliders default to 0-100, step 1'; number inputs default to step 1. */
const SLIDER_DEFAULT_RANGE = { min: 0, max: 100 } as const;
const DEFAULT_STEP = 1;
/** Floating-point slack for the step grid: 2.1 is (2.1 - 1) / 0.1 = 11.000000000000002 steps. */
const STEP_TOLERANCE = 1e-9;

export function validateAgentConfig(templateId: string, config: TAgentConfig): ErrorDetail[] {
  const template = findTemplate(templateId);
  if (!template) return [{ path: 'templateId', message: `unknown template '${templateId}'` }];

  const problems: ErrorDetail[] = [...validateSchedule(config.schedule)];
  const definitions = template.defaultConfig.parameters;

  for (const [key, value] of Object.entries(config.parameters)) {
    const definition = Object.hasOwn(definitions, key) ? definitions[key] : undefined;
    const message = definition ? parameterProblem(definition, value) : 'unknown parameter';
    if (message) problems.push({ path: `parameters.${key}`, message });
  }
  for (const [key, definition] of Object.entries(definitions)) {
    if (definition.required && !Object.hasOwn(config.parameters, key)) problems.push({ path: `parameters.${key}`, message: 'is required' });
  }
  return problems;
}

function validateSchedule(schedule: TAgentConfig['schedule']): ErrorDetail[] {
  const problems: ErrorDetail[] = [];
  // HH:mm with leading zeros (the contract enforces it) compares correctly as text.
  if (schedule.activeHours && schedule.activeHours.start >= schedule.activeHours.end) {
    problems.push({ path: 'schedule.activeHours', message: 'start must be before end' });
  }
  const repeated = WEEKDAYS.find((day) => schedule.daysActive.filter((d) => d === day).length > 1);
  if (repeated) problems.push({ path: 'schedule.daysActive', message: `lists ${repeated} twice` });
  return problems;
}

/** The rule a value breaks, or null when it fits its definition. */
export function parameterProblem(definition: TParameterDefinition, value: TParameterValue): string | null {
  const rules = definition.validation ?? {};
  switch (definition.type) {
    case 'string':
    case 'textarea': {
      if (typeof value !== 'string') return 'must be text';
      if (value.length > MAX_TEXT_LENGTH) return `must be at most ${MAX_TEXT_LENGTH} characters`;
      if (definition.required && value.trim() === '') return 'is required';
      if (rules.pattern !== undefined && !new RegExp(rules.pattern).test(value)) {
        return rules.patternMessage ?? `must match ${rules.pattern}`;
      }
      return null;
    }
    case 'number':
    case 'slider': {
      if (typeof value !== 'number' || !Number.isFinite(value)) return 'must be a number';
      const defaults: { min?: number; max?: number } = definition.type === 'slider' ? SLIDER_DEFAULT_RANGE : {};
      const min = rules.min ?? defaults.min;
      const max = rules.max ?? defaults.max;
      if ((min !== undefined && value < min) || (max !== undefined && value > max)) return rangeMessage(min, max);
      const step = rules.step ?? DEFAULT_STEP;
      const base = min ?? 0;
      const steps = (value - base) / step;
      if (Math.abs(steps - Math.round(steps)) > STEP_TOLERANCE) {
        return step === 1 && Number.isInteger(base) ? 'must be a whole number' : `must be a multiple of ${step} from ${base}`;
      }
      return null;
    }
    case 'boolean':
      return typeof value === 'boolean' ? null : 'must be true or false';
    case 'select': {
      const options = rules.options ?? [];
      if (typeof value !== 'string' || !options.includes(value)) return `must be one of ${options.join(', ')}`;
      return disabledReason(definition, value);
    }
    case 'multi-select': {
      const options = rules.options ?? [];
      if (!Array.isArray(value)) return `must be a list of ${options.join(', ')}`;
      const unknown = value.find((option) => !options.includes(option));
      if (unknown !== undefined) return `'${unknown}' is not one of ${options.join(', ')}`;
      const duplicate = value.find((option, i) => value.indexOf(option) !== i);
      if (duplicate !== undefined) return `lists ${duplicate} twice`;
      for (const option of value) {
        const reason = disabledReason(definition, option);
        if (reason) return reason;
      }
      if (definition.required && value.length === 0) return 'choose at least one';
      return null;
    }
    default:
      // A template with a type the server does not know is a programming error, not user input.
      return 'unsupported parameter type';
  }
}

function rangeMessage(min: number | undefined, max: number | undefined): string {
  if (min !== undefined && max !== undefined) return `must be between ${min} and ${max}`;
  return min !== undefined ? `must be at least ${min}` : `must be at most ${max}`;
}

/** 'FTX is closed since 2022': options shown in the wizard but no longer usable. */
function disabledReason(definition: TParameterDefinition, option: string): string | null {
  const reason = definition.validation?.disabledOptions?.[option];
  return reason === undefined ? null : `${option} is ${reason.charAt(0).toLowerCase()}${reason.slice(1)}`;
}
