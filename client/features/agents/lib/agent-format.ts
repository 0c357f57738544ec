import { optionLabel, type TParameterDefinition } from '../../../../contracts/agent-parameters.ts';
import { FREQUENCY_LABELS, currentFrequency } from '../../../../contracts/agents.ts';
import { formatPercent } from '../../../../contracts/number-format.ts';

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

/** A parameter value as text: lists joined, booleans as Yes/No, a choice by the name its field
 * shows ('1 hour' for 1h, 'HTX (Huobi)' for Huobi) when its definition is known. */
export function formatValue(value: unknown, definition?: TParameterDefinition): string {
  const named = (option: unknown) => (definition && typeof option === 'string' ? optionLabel(definition, option) : String(option));
  if (Array.isArray(value)) return value.length ? value.map(named).join(', ') : 'None';
  if (typeof value === 'boolean') return value ? 'Yes' : 'No';
  if (value === null || value === undefined || value === '') return 'Not set';
  return named(value);
}

/** A change in % with its sign, as a move reads: '+1.25%', '-0.5%', '0%'; '—' without one. */
export const formatSignedPercent = (value: number | null | undefined): string => (value !== null && value !== undefined && value > 0 ? `+${formatPercent(value)}` : formatPercent(value));

/**
 * Active hours as wall-clock times in the zone they were set in, that zone named by its IANA
 * name (its abbreviation changes with daylight saving, the hours do not): '09:30 – 16:00
 * (America/New_York)'; 'All day' without hours. A template's hours have no zone yet.
 */
export function activeHoursText(schedule: { activeHours?: { start: string; end: string }; timeZone?: string }): string {
  if (!schedule.activeHours) return 'All day';
  const hours = `${schedule.activeHours.start} – ${schedule.activeHours.end}`;
  return schedule.timeZone ? `${hours} (${schedule.timeZone})` : hours;
}
