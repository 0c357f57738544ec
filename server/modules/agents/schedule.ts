import { WEEKDAYS, currentFrequency, type TFrequency, type TSchedule, type TWeekday } from '../../../contracts/agents.ts';

/**
 * When a running agent is next due: the first slot of its frequency strictly after `now`, on an
 * active day and within the active hours, all read in the schedule's own IANA time zone so
 * '09:30' stays 09:30 local across daylight-saving changes. Pure, and built on Intl only.
 *
 * Slots are wall-clock times on local dates, anchored to the start of the active hours: every n
 * minutes (realtime: every minute) or every hour counted from the start, up to the end
 * inclusive (hourly 09:30-16:00 runs 09:30, 10:30 ... 15:30; 23:59 runs under 00:00-23:59);
 * daily at the start (00:00 without hours); weekly at the start on the first active day of the
 * week (Monday first). A wall time skipped by a spring-forward runs just after
 * the jump (02:30 becomes 03:30); a wall time that happens twice runs at whichever occurrence is
 * next, so the repeated hour is neither skipped nor, by one lookup, run twice.
 */

const MINUTE_MS = 60_000;
const HOUR_MS = 60 * MINUTE_MS;
const DAY_MINUTES = 24 * 60;
/** Larger than any daylight-saving shift, so both sides of a transition are seen. */
const TRANSITION_WINDOW_MS = 3 * HOUR_MS;
/** Yesterday (a repeated hour near midnight) through today plus a week (weekly schedules). */
const FIRST_DAY = -1;
const LAST_DAY = 8;

const STEP_MINUTES: Record<TFrequency, number | 'daily' | 'weekly'> = {
  realtime: 1,
  '5min': 5,
  '15min': 15,
  '30min': 30,
  hourly: 60,
  daily: 'daily',
  weekly: 'weekly',
};

export function computeNextRunAt(schedule: Omit<TSchedule, 'daysActive'> & { daysActive: readonly TWeekday[] }, now: Date): Date | null {
  const zone = zoneClock(schedule.timeZone);
  const nowMs = now.getTime();
  const windowStart = schedule.activeHours ? toMinutes(schedule.activeHours.start) : 0;
  const windowEnd = schedule.activeHours ? toMinutes(schedule.activeHours.end) : DAY_MINUTES - 1;
  // A schedule stored with a former frequency value ('1min') runs as its current entry.
  const frequency = currentFrequency(schedule.frequency);
  if (frequency === undefined) return null;
  const step = STEP_MINUTES[frequency];
  const firstActiveDay = WEEKDAYS.find((day) => schedule.daysActive.includes(day));

  const today = zone.wallClock(nowMs);
  // Away from a clock change, wall time and real time move together, so slots at or before now's
  // wall minute are past and are not even converted, and the first slot found is the next one.
  // Within a few hours of a change they might not be: look back by the size of the change (an
  // hour, or 30 minutes on Lord Howe Island), starting from yesterday for changes at midnight.
  const offsets = [zone.offset(nowMs - TRANSITION_WINDOW_MS), zone.offset(nowMs), zone.offset(nowMs + TRANSITION_WINDOW_MS)];
  const lookBack = (Math.max(...offsets) - Math.min(...offsets)) / MINUTE_MS;
  const stable = lookBack === 0;

  // Wall order is real-time order except around a clock change, where a later wall time can be
  // an earlier instant (01:53 first time round comes before 01:00 second time round). There the
  // search goes on while a wall time could still be earlier than the best found; each wall time
  // is an instant between wall - maxOffset and wall - minOffset, which bounds it without Intl.
  const minOffset = Math.min(...offsets);
  const maxOffset = Math.max(...offsets);
  let best: number | undefined;
  for (let dayOffset = stable ? 0 : FIRST_DAY; dayOffset <= LAST_DAY; dayOffset++) {
    const date = new Date(Date.UTC(today.year, today.month - 1, today.day + dayOffset));
    const weekday = weekdayOf(date);
    if (!schedule.daysActive.includes(weekday)) continue;
    if (step === 'weekly' && weekday !== firstActiveDay) continue;

    // The first wall minute of this day that could still be after now.
    const earliest = Math.max(windowStart, today.minuteOfDay - dayOffset * DAY_MINUTES + 1 - lookBack);
    for (const minute of slots(step, windowStart, windowEnd, earliest)) {
      const wall = date.getTime() + minute * MINUTE_MS;
      if (best !== undefined && wall - maxOffset >= best) return new Date(best);
      if (wall - minOffset <= nowMs) continue; // past however the clock changed
      const at = zone.instantsOf(date, minute).find((instant) => instant > nowMs);
      if (at === undefined) continue;
      if (stable) return new Date(at);
      if (best === undefined || at < best) best = at;
    }
  }
  // Null only when no day is active or the frequency is unknown, which the contract refuses.
  return best === undefined ? null : new Date(best);
}

/** Wall minutes of one day for a frequency, from `earliest` (never before the start) on, in
 * order: the start of the active hours and every step after it. */
function* slots(step: number | 'daily' | 'weekly', windowStart: number, windowEnd: number, earliest: number): Generator<number> {
  if (step === 'daily' || step === 'weekly') {
    if (windowStart >= earliest) yield windowStart;
    return;
  }
  const first = windowStart + Math.ceil((earliest - windowStart) / step) * step;
  for (let minute = first; minute <= windowEnd; minute += step) yield minute;
}

function toMinutes(hhmm: string): number {
  const [hours, minutes] = hhmm.split(':').map(Number);
  return hours! * 60 + minutes!;
}

/** The weekday of a calendar date held as midnight UTC (a date has the same weekday everywhere). */
function weekdayOf(date: Date): TWeekday {
  return WEEKDAYS[(date.getUTCDay() + 6) % 7]!; // getUTCDay is 0 for Sunday; WEEKDAYS starts on Monday
}

type WallClock = { year: number; month: number; day: number; minuteOfDay: number };

const formatters = new Map<string, Intl.DateTimeFormat>();

/** Reads instants as wall-clock time in one IANA zone, and wall-clock times back as instants. */
function zoneClock(timeZone: string) {
  let format = formatters.get(timeZone);
  if (!format) {
    format = new Intl.DateTimeFormat('en-US', {
      timeZone,
      hourCycle: 'h23',
      year: 'numeric',
      month: 'numeric',
      day: 'numeric',
      hour: 'numeric',
      minute: 'numeric',
      second: 'numeric',
    });
    formatters.set(timeZone, format);
  }
  const fmt = format;

  /** The wall-clock reading at an instant, as if that reading were UTC (ms). */
  function wallAsUtc(instant: number): number {
    const parts: Record<string, number> = {};
    for (const part of fmt.formatToParts(instant)) if (part.type !== 'literal') parts[part.type] = Number(part.value);
    return Date.UTC(parts.year!, parts.month! - 1, parts.day!, parts.hour!, parts.minute!, parts.second!);
  }

  /** The zone's offset from UTC at an instant, in ms (east positive). */
  function offset(instant: number): number {
    return wallAsUtc(instant) - Math.floor(instant / 1000) * 1000;
  }

  function wallClock(instant: number): WallClock {
    const wall = new Date(wallAsUtc(instant));
    return {
      year: wall.getUTCFullYear(),
      month: wall.getUTCMonth() + 1,
      day: wall.getUTCDate(),
      minuteOfDay: wall.getUTCHours() * 60 + wall.getUTCMinutes(),
    };
  }

  /**
   * The instants a wall time on a date names, earliest first: one usually, two in a repeated
   * hour, and for a time skipped by a spring-forward the instant the same distance after the
   * jump (read with the offset from before it).
   */
  function instantsOf(date: Date, minuteOfDay: number): number[] {
    const wall = date.getTime() + minuteOfDay * MINUTE_MS;
    // Within an hour or so of the real instant; the offsets either side of it are the candidates.
    const near = wall - offset(wall);
    const before = offset(near - TRANSITION_WINDOW_MS);
    const after = offset(near + TRANSITION_WINDOW_MS);
    if (before === after) return [wall - before]; // no clock change nearby
    const candidates = [wall - before, wall - after].sort((a, b) => a - b);
    const real = candidates.filter((instant) => wallAsUtc(instant) === wall);
    return real.length > 0 ? real : [wall - before];
  }

  return { offset, wallClock, instantsOf };
}
