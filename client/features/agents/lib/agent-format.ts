import { format } from 'date-fns';
import { FREQUENCY_LABELS, currentFrequency } from '../../../../contracts/agents.ts';
import { formatPercent } from '../../../../contracts/number-format.ts';

export const DATE_TIME = 'MMM d, yyyy HH:mm';
export const DATE = 'MMM d, yyyy';
export const RUN_TIME = 'MMM d, HH:mm:ss';

/** A date from the API in one of SPEC's formats; `fallback` when there is none or it is invalid. */
export function formatDate(iso: string | null | undefined, pattern: string, fallback = 'Never'): string {
  if (!iso) return fallback;
  const date = new Date(iso);
  return Number.isNaN(date.getTime()) ? fallback : format(date, pattern);
}

/**
 * A time in this browser's time zone, in SPEC's 'MMM d, yyyy HH:mm' with the zone named after
 * it ('Mar 15, 2027 09:30 EDT'), so a time the server scheduled in another zone is never read
 * as the wrong hour.
 */
export function formatZonedDateTime(iso: string | null | undefined, fallback = 'Not scheduled'): string {
  const text = formatDate(iso, DATE_TIME, '');
  if (!text) return fallback;
  const zone = new Intl.DateTimeFormat('en-US', { timeZoneName: 'short' }).formatToParts(new Date(iso!)).find((part) => part.type === 'timeZoneName');
  return zone ? `${text} ${zone.value}` : text;
}

/** Seconds with one decimal ('2.5s'), or null without both ends. */
export function formatDuration(start: string | null, end: string | null): string | null {
  if (!start || !end) return null;
  const ms = new Date(end).getTime() - new Date(start).getTime();
  return Number.isFinite(ms) ? `${(Math.max(0, ms) / 1000).toFixed(1)}s` : null;
}

/** SPEC: performance is green, red when it starts with a minus. */
export const performanceClass = (performance: string) => (performance.trim().startsWith('-') ? 'text-red-700' : 'text-emerald-700');

/** A frequency's name in the list (a former value such as '1min' by its current entry's). */
export function frequencyLabel(frequency: string): string {
  const current = currentFrequency(frequency);
  return current ? FREQUENCY_LABELS[current] : frequency;
}

/** A parameter value as text: lists joined, booleans as Yes/No. */
export function formatValue(value: unknown): string {
  if (Array.isArray(value)) return value.length ? value.join(', ') : 'None';
  if (typeof value === 'boolean') return value ? 'Yes' : 'No';
  if (value === null || value === undefined || value === '') return 'Not set';
  return String(value);
}

/** A change in % with its sign, as a move reads: '+1.25%', '-0.5%', '0%'; '—' without one. */
export const formatSignedPercent = (value: number | null | undefined): string => (value !== null && value !== undefined && value > 0 ? `+${formatPercent(value)}` : formatPercent(value));
