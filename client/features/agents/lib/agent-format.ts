import { format } from 'date-fns';
import { FREQUENCIES, FREQUENCY_LABELS, type TFrequency } from '../../../../contracts/agents.ts';

export const DATE_TIME = 'MMM d, yyyy HH:mm';
export const DATE = 'MMM d, yyyy';
export const RUN_TIME = 'MMM d, HH:mm:ss';

/** A date from the API in one of SPEC's formats; `fallback` when there is none or it is invalid. */
export function formatDate(iso: string | null | undefined, pattern: string, fallback = 'Never'): string {
  if (!iso) return fallback;
  const date = new Date(iso);
  return Number.isNaN(date.getTime()) ? fallback : format(date, pattern);
}

/** Seconds with one decimal ('2.5s'), or null without both ends. */
export function formatDuration(start: string | null, end: string | null): string | null {
  if (!start || !end) return null;
  const ms = new Date(end).getTime() - new Date(start).getTime();
  return Number.isFinite(ms) ? `${(Math.max(0, ms) / 1000).toFixed(1)}s` : null;
}

/** SPEC: performance is green, red when it starts with a minus. */
export const performanceClass = (performance: string) => (performance.trim().startsWith('-') ? 'text-red-700' : 'text-emerald-700');

/** The wizard's order: SPEC's Hourly, Daily, Weekly, Real-time first, then the finer ones. */
const FIRST: TFrequency[] = ['hourly', 'daily', 'weekly', 'realtime'];
export const FREQUENCY_ORDER: TFrequency[] = [...FIRST, ...FREQUENCIES.filter((f) => !FIRST.includes(f))];

export const frequencyLabel = (frequency: string) => FREQUENCY_LABELS[frequency as TFrequency] ?? frequency;

/** A parameter value as text: lists joined, booleans as Yes/No. */
export function formatValue(value: unknown): string {
  if (Array.isArray(value)) return value.length ? value.join(', ') : 'None';
  if (typeof value === 'boolean') return value ? 'Yes' : 'No';
  if (value === null || value === undefined || value === '') return 'Not set';
  return String(value);
}
