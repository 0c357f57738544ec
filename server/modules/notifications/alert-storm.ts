import { thresholdLabel } from '../../../contracts/alert-thresholds.ts';
import type { TRunAlert } from '../../../contracts/market.ts';
import type { TNotifiedCondition } from '../../../contracts/condition-outcomes.ts';
import { CLOCK, formatTime } from '../../../contracts/time-format.ts';
import { zoneOr } from '../../../contracts/time-zone.ts';

/** The sliding window the per-hour cap counts an agent's alert notifications in. */
export const CAP_WINDOW_MS = 60 * 60 * 1000;

/**
 * When the cap lets the next alert through (ms): the hour after the notification whose leaving
 * the window brings the count under the cap. `times` (ms) from `windowStart` on are the window's
 * alert notifications, oldest first; null while the count is under the cap (nothing is held
 * back). Numbers and a start, not Dates and a copy: a test on history asks it for every
 * notification of thousands of candles.
 */
export function resumesAt(times: readonly number[], maxPerHour: number, windowStart = 0): number | null {
  if (times.length - windowStart < maxPerHour) return null;
  return times[times.length - maxPerHour]! + CAP_WINDOW_MS;
}

/** '14:05 GMT+9' in the user's zone, '14:05 UTC' when they have none (or it is unknown here):
 * the notice is stored and sent as written, so its times carry their zone (docs/decisions/0066). */
export const clockTime = (at: Date, timeZone: string | null): string => formatTime(at, CLOCK, zoneOr(timeZone));

export type StormSummary = {
  agentName: string;
  /** Every alert held back in this period, in the order they fired. */
  held: readonly TRunAlert[];
  /** Every condition of the owner's held back in this period (issue 30). */
  heldConditions?: readonly TNotifiedCondition[];
  since: Date;
  resumes: Date;
  maxPerHour: number;
  timeZone: string | null;
};

/** '{agent}: alert storm, notifications paused until 14:05 UTC': the bell's line and the email's subject. */
export const stormTitle = (s: Pick<StormSummary, 'agentName' | 'resumes' | 'timeZone'>) =>
  `${s.agentName}: alert storm, notifications paused until ${clockTime(s.resumes, s.timeZone)}`;

const list = (items: readonly string[]) => [...new Set(items)].join(', ');

/** What was held back, where, since when, and when notifications resume. */
export function stormMessage(s: StormSummary): string {
  const conditions = s.heldConditions ?? [];
  const n = s.held.length + conditions.length;
  const markets = [...s.held.map((a) => a.market), ...conditions.map((c) => c.market)];
  const kinds = [...s.held.map((a) => thresholdLabel(a.threshold)), ...conditions.map((c) => c.title)];
  return [
    `This agent reached its limit of ${s.maxPerHour} notification${s.maxPerHour === 1 ? '' : 's'} per hour.`,
    `Held back since ${clockTime(s.since, s.timeZone)}: ${n} alert${n === 1 ? '' : 's'} on ${list(markets)} (${list(kinds)}).`,
    `Notifications resume at ${clockTime(s.resumes, s.timeZone)}. Run History records every firing.`,
  ].join('\n');
}
