import type { z } from 'zod';
import { parameterProblems } from '../../../contracts/agent-parameters.ts';
import { ACTIVE_HOURS_ORDER, AGENT_TEMPLATES, templateParametersSchema, WEEKDAYS, ZSchedule, type TSchedule } from '../../../contracts/agents.ts';
import { TEMPLATE_TIMEFRAMES } from '../../../contracts/agent-markets.ts';
import { conditionTimeframeProblems, ZConditions } from '../../../contracts/conditions.ts';
import { AppError, type ErrorDetail } from '../../lib/errors.ts';
import { checkInput } from '../../lib/validate.ts';

/**
 * The contract (ZAgentConfig) only checks a configuration's shape; what each parameter may hold
 * depends on the template, so it is checked here with the template's parameter schema (the one
 * the runtime reads parameters with), on create and on every config change. The wizard does not
 * block bad values (SPEC section 5), so the server is the only gate.
 *
 * Pure: returns every problem found (empty when valid) so a client can mark all fields at once.
 * The configuration is taken as sent, and each part a rule reads is parsed on its own: a refused
 * threshold does not keep the token's problem from being found (issue 29 item 6). Paths are
 * relative to the config (`parameters.token`, `schedule.activeHours`), plus `templateId` when
 * the template does not exist.
 */
export function validateAgentConfig(templateId: string, config: unknown): ErrorDetail[] {
  const schema = templateParametersSchema(templateId);
  if (!schema) return [{ path: 'templateId', message: `Template '${templateId}' does not exist: choose ${orList(AGENT_TEMPLATES.map((t) => t.name))}` }];
  const parts = isRecord(config) ? config : {};
  const schedule = ZSchedule.safeParse(parts.schedule);
  const problems = schedule.success ? validateSchedule(schedule.data) : [];
  const parameters = parts.parameters;
  if (isRecord(parameters)) {
    const parsed = schema.safeParse(parameters);
    if (!parsed.success) problems.push(...parameterProblems(parsed.error, parameters));
  }
  problems.push(...conditionProblems(parts), ...watchlistProblems(templateId, parts));
  return problems;
}

/** The template whose markets are its watchlist (issue 30 item 3, docs/decisions/0071). */
export const CUSTOM_MONITOR = 'custom-monitor';
export const WATCHLIST_REFUSED = 'This template watches its own markets; a watchlist is for the Custom Monitor';
export const WATCHLIST_REQUIRED = 'Add at least one market to watch';
export const WATCHES_NOTHING = 'A Custom Monitor with neither conditions nor alert thresholds would watch nothing: add a condition or an alert';

/**
 * The conditions' rules that need the agent's own timeframe (its timeframe parameter as a candle
 * size): none shorter than it, at most three timeframes. Read only when the conditions and the
 * timeframe both parse; their shape's problems are the contract's (`conditions.0.when...`).
 */
function conditionProblems(parts: Record<string, unknown>): ErrorDetail[] {
  const conditions = ZConditions.safeParse(parts.conditions);
  const timeframe = isRecord(parts.parameters) ? parts.parameters.timeframe : undefined;
  if (!conditions.success || typeof timeframe !== 'string' || !Object.hasOwn(TEMPLATE_TIMEFRAMES, timeframe)) return [];
  return conditionTimeframeProblems(conditions.data, TEMPLATE_TIMEFRAMES[timeframe as keyof typeof TEMPLATE_TIMEFRAMES]);
}

/** A watchlist is the Custom Monitor's, and it must have one, and something to look for on it. */
function watchlistProblems(templateId: string, parts: Record<string, unknown>): ErrorDetail[] {
  if (templateId !== CUSTOM_MONITOR) return parts.watchlist === undefined ? [] : [{ path: 'watchlist', message: WATCHLIST_REFUSED }];
  const problems: ErrorDetail[] = [];
  if (parts.watchlist === undefined) problems.push({ path: 'watchlist', message: WATCHLIST_REQUIRED });
  const conditions = Array.isArray(parts.conditions) ? parts.conditions.length : 0;
  const notifications = isRecord(parts.notifications) ? parts.notifications : {};
  const thresholds = Array.isArray(notifications.thresholds) ? notifications.thresholds.length : 0;
  if (conditions === 0 && thresholds === 0) problems.push({ path: 'conditions', message: WATCHES_NOTHING });
  return problems;
}

function validateSchedule(schedule: TSchedule): ErrorDetail[] {
  const problems: ErrorDetail[] = [];
  // HH:mm with leading zeros (the contract enforces it) compares correctly as text.
  if (schedule.activeHours && schedule.activeHours.start >= schedule.activeHours.end) {
    problems.push({ path: 'schedule.activeHours', message: ACTIVE_HOURS_ORDER });
  }
  const repeated = WEEKDAYS.find((day) => schedule.daysActive.filter((d) => d === day).length > 1);
  if (repeated) problems.push({ path: 'schedule.daysActive', message: `Active days list ${repeated} twice` });
  return problems;
}

/**
 * A create, edit or test request checked whole: its contract's shape and, whatever the shape
 * held, the rules beyond it (the template's parameters, the schedule's order, the owner's
 * channels), so one answer names every refused field and the person fixes them in one go. A
 * rule's problem on a field the shape already refused is left out: the shape's says it first.
 * The shape names fields from the body (`config.parameters.token`), the rules from the
 * configuration (`parameters.token`); both are the same field.
 */
export async function checkAgentRequest<S extends z.ZodType>(schema: S, body: unknown, rules: () => ErrorDetail[] | Promise<ErrorDetail[]>): Promise<z.output<S>> {
  const shape = checkInput(schema, body);
  const refused = new Set(shape.ok ? [] : shape.problems.map((p) => sameField(p.path)));
  const more = (await rules()).filter((p) => !refused.has(sameField(p.path)));
  if (shape.ok && more.length === 0) return shape.data;
  throw new AppError('BAD_REQUEST', 'Invalid request', [...(shape.ok ? [] : shape.problems), ...more]);
}

const sameField = (path: string) => path.replace(/^config\./, '');

/** The body's field `key` when the body is an object (the rules read the request as sent). */
export const fieldOf = (body: unknown, key: string): unknown => (isRecord(body) ? body[key] : undefined);

/** 'A, B or C'. */
const orList = (items: readonly string[]) => (items.length < 2 ? items.join('') : `${items.slice(0, -1).join(', ')} or ${items.at(-1)!}`);

const isRecord = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);
