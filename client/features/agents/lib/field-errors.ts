import { AGENT_TEMPLATES } from '../../../../contracts/agents.ts';
import { ApiError } from '../../../lib/api-client.ts';

/** Messages from a 400, by the configuration's own path ('parameters.token', 'name',
 * 'notifications.thresholds.0.value'). */
export type TFieldErrors = Readonly<Record<string, string>>;

export const NO_FIELD_ERRORS: TFieldErrors = {};

/**
 * The field errors of a refused create or edit, or null when the failure is not about fields.
 * The server names the shape's problems from the request body ('config.schedule.daysActive')
 * and the template's from the configuration ('parameters.token'); both land on the same field.
 * The first message per field wins, as a person fixes one thing at a time.
 */
export function fieldErrors(err: unknown): TFieldErrors | null {
  if (!(err instanceof ApiError) || err.status !== 400 || !err.body || typeof err.body !== 'object' || !('details' in err.body)) return null;
  const { details } = err.body;
  if (!Array.isArray(details) || details.length === 0) return null;
  const errors: Record<string, string> = {};
  for (const detail of details) {
    if (!detail || typeof detail !== 'object' || !('path' in detail) || !('message' in detail)) continue;
    const path = String(detail.path).replace(/^config\./, '');
    errors[path] ??= String(detail.message);
  }
  return Object.keys(errors).length > 0 ? errors : null;
}

/** The errors under `prefix` ('schedule'), the prefix itself included. */
export function errorsUnder(errors: TFieldErrors, prefix: string): Array<[path: string, message: string]> {
  return Object.entries(errors).filter(([path]) => path === prefix || path.startsWith(`${prefix}.`));
}

/** Where a field lives in the wizard: its tab; the name and anything else show on Review. */
export function wizardStepOf(path: string): 'schedule' | 'parameters' | 'notifications' | 'review' {
  const section = path.split('.')[0];
  return section === 'schedule' || section === 'parameters' || section === 'notifications' ? section : 'review';
}

const SCHEDULE_LABELS: Record<string, string> = { frequency: 'Frequency', daysActive: 'Active days', activeHours: 'Active hours', timeZone: 'Time zone' };
const NOTIFICATION_LABELS: Record<string, string> = { email: 'Email notifications', inApp: 'In-app notifications', maxPerHour: 'Notifications per hour', brief: 'Explain alerts' };
const THRESHOLD_FIELDS: Record<string, string> = { type: 'type', value: 'value', message: 'message' };

/** A parameter's label ('RSI threshold'), from the first template defining it: a key has one
 * label in every template that uses it. */
const parameterLabel = (key: string): string | undefined => AGENT_TEMPLATES.find((t) => key in t.defaultConfig.parameters)?.defaultConfig.parameters[key]?.label;

/** A path as a person reads it beside its message: 'Active hours', 'Threshold 2 value'. */
export function fieldLabel(path: string): string {
  const [section, key, index, field] = path.split('.');
  if (section === 'schedule' && key) return SCHEDULE_LABELS[key] ?? key;
  if (section === 'notifications' && key === 'thresholds') {
    if (index === undefined) return 'Alert thresholds';
    return `Threshold ${Number(index) + 1}${field ? ` ${THRESHOLD_FIELDS[field] ?? field}` : ''}`;
  }
  if (section === 'notifications' && key) return NOTIFICATION_LABELS[key] ?? key;
  if (section === 'name') return 'Name';
  if (section === 'parameters' && key) return parameterLabel(key) ?? path;
  if (section === 'candles') return 'Candles per market';
  return path;
}

/** The errors left once a group changed from `before` to `after`: a field the user touched
 * drops its message (the server has not judged the new value yet). */
export function clearChanged(errors: TFieldErrors, prefix: string, before: object, after: object): TFieldErrors {
  const old = before as Record<string, unknown>;
  const now = after as Record<string, unknown>;
  const changed = (key: string) => JSON.stringify(old[key]) !== JSON.stringify(now[key]);
  const kept = Object.entries(errors).filter(([path]) => {
    if (!path.startsWith(`${prefix}.`)) return true;
    return !changed(path.slice(prefix.length + 1).split('.')[0]!);
  });
  return kept.length === Object.keys(errors).length ? errors : Object.fromEntries(kept);
}
