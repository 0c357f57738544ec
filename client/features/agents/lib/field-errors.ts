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
  // The watchlist and the conditions are built beside the parameters (issue 30).
  if (section === 'watchlist' || section === 'conditions') return 'parameters';
  return section === 'schedule' || section === 'parameters' || section === 'notifications' ? section : 'review';
}

/** Fields that repeat, by their list's path, and what one item is called ('Threshold 2'). */
const REPEATED: ReadonlyArray<[list: string, item: string]> = [
  ['notifications.thresholds', 'Threshold'],
  ['notifications.channels', 'Channel'],
  ['watchlist', 'Market'],
  ['conditions', 'Condition'],
];

/**
 * A message as a list of problems shows it. The server's messages name their field as the screen
 * does ('Notifications per hour must be at least 1'), so a message stands alone; a field of a
 * list item also says which item ('Threshold 2: Value must be a number from 0 to 10,000').
 */
export function errorLine(path: string, message: string): string {
  for (const [list, item] of REPEATED) {
    const index = path.startsWith(`${list}.`) ? Number(path.slice(list.length + 1).split('.')[0]) : Number.NaN;
    if (Number.isInteger(index)) return `${item} ${index + 1}: ${message}`;
  }
  return message;
}

/** The value at a path's keys ('thresholds', '0', 'value') inside a group. */
function valueAt(group: unknown, keys: readonly string[]): unknown {
  let value = group;
  for (const key of keys) value = typeof value === 'object' && value !== null ? (value as Record<string, unknown>)[key] : undefined;
  return value;
}

/** The errors left once a group changed from `before` to `after`: a field the user touched
 * drops its message (the server has not judged the new value yet); the others keep theirs, down
 * to one threshold's one field. */
export function clearChanged(errors: TFieldErrors, prefix: string, before: object, after: object): TFieldErrors {
  const kept = Object.entries(errors).filter(([path]) => {
    // A message about the group as a whole ('conditions': too many timeframes) goes with any change to it.
    if (path === prefix) return JSON.stringify(before) === JSON.stringify(after);
    if (!path.startsWith(`${prefix}.`)) return true;
    const keys = path.slice(prefix.length + 1).split('.');
    return JSON.stringify(valueAt(before, keys)) === JSON.stringify(valueAt(after, keys));
  });
  return kept.length === Object.keys(errors).length ? errors : Object.fromEntries(kept);
}
