import { describe, expect, it } from 'vitest';
import { WEEKDAYS, type TFrequency, type TSchedule, type TWeekday } from '../../../contracts/agents.ts';
import { computeNextRunAt } from './schedule.ts';

const ALL_DAYS = [...WEEKDAYS];
const WORK_DAYS: TWeekday[] = ['Monday', 'Tuesday', 'Wednesday', 'Thursday', 'Friday'];

function next(schedule: Partial<TSchedule>, now: string): string | undefined {
  const full: TSchedule = { frequency: 'realtime', daysActive: ALL_DAYS, timeZone: 'UTC', ...schedule };
  return computeNextRunAt(full, new Date(now))?.toISOString();
}

describe('computeNextRunAt', () => {
  it.each<[TFrequency, string, string]>([
    ['realtime', '2024-06-03T10:00:30.000Z', '2024-06-03T10:01:00.000Z'],
    ['realtime', '2024-06-03T10:00:00.000Z', '2024-06-03T10:01:00.000Z'], // strictly after a boundary
    ['5min', '2024-06-03T10:02:00.000Z', '2024-06-03T10:05:00.000Z'],
    ['5min', '2024-06-03T10:05:00.000Z', '2024-06-03T10:10:00.000Z'],
    ['15min', '2024-06-03T10:02:00.000Z', '2024-06-03T10:15:00.000Z'],
    ['30min', '2024-06-03T10:31:00.000Z', '2024-06-03T11:00:00.000Z'],
    ['hourly', '2024-06-03T10:00:00.000Z', '2024-06-03T11:00:00.000Z'],
    ['daily', '2024-06-03T10:00:00.000Z', '2024-06-04T00:00:00.000Z'],
    ['realtime', '2024-12-31T23:59:59.999Z', '2025-01-01T00:00:00.000Z'],
  ])('%s after %s is %s (UTC, every day, all hours)', (frequency, now, expected) => {
    expect(next({ frequency }, now)).toBe(expected);
  });

  it('runs the stock default (hourly, 09:30-16:00, Monday-Friday) from the start of its hours, in New York time', () => {
    const stock = { frequency: 'hourly' as const, activeHours: { start: '09:30', end: '16:00' }, daysActive: WORK_DAYS, timeZone: 'America/New_York' };
    expect(next(stock, '2024-06-03T12:00:00Z')).toBe('2024-06-03T13:30:00.000Z'); // Monday 08:00 EDT -> 09:30 EDT, not 10:00
    expect(next(stock, '2024-06-03T13:30:00Z')).toBe('2024-06-03T14:30:00.000Z'); // 09:30 -> 10:30
    expect(next(stock, '2024-06-03T14:00:00Z')).toBe('2024-06-03T14:30:00.000Z'); // 10:00 -> 10:30
    expect(next(stock, '2024-06-03T19:00:00Z')).toBe('2024-06-03T19:30:00.000Z'); // 15:00 -> 15:30, the last slot
    expect(next(stock, '2024-06-03T19:30:00Z')).toBe('2024-06-04T13:30:00.000Z'); // 15:30 -> 16:30 is past the end: tomorrow 09:30
    expect(next(stock, '2024-06-07T20:00:00Z')).toBe('2024-06-10T13:30:00.000Z'); // Friday 16:00 -> Monday 09:30
    expect(next(stock, '2024-06-08T15:00:00Z')).toBe('2024-06-10T13:30:00.000Z'); // Saturday
  });

  it('counts minute steps from the start of the active hours, not from the top of the hour', () => {
    const every15 = { frequency: '15min' as const, activeHours: { start: '09:10', end: '10:00' }, timeZone: 'UTC' };
    expect(next(every15, '2024-06-03T09:00:00Z')).toBe('2024-06-03T09:10:00.000Z');
    expect(next(every15, '2024-06-03T09:12:00Z')).toBe('2024-06-03T09:25:00.000Z');
    expect(next(every15, '2024-06-03T09:40:00Z')).toBe('2024-06-03T09:55:00.000Z'); // 10:10 is past 10:00
    expect(next(every15, '2024-06-03T09:55:00Z')).toBe('2024-06-04T09:10:00.000Z');
  });

  it('keeps anchored slots on local time across a spring-forward and a fall-back (New York 2027)', () => {
    // 2027-03-14 02:00 EST -> 03:00 EDT; 2027-11-07 02:00 EDT -> 01:00 EST.
    const stock = { frequency: 'hourly' as const, activeHours: { start: '09:30', end: '16:00' }, daysActive: WORK_DAYS, timeZone: 'America/New_York' };
    expect(next(stock, '2027-03-12T20:30:00Z')).toBe('2027-03-15T13:30:00.000Z'); // Friday 15:30 EST -> Monday 09:30 EDT
    expect(next(stock, '2027-11-05T19:30:00Z')).toBe('2027-11-08T14:30:00.000Z'); // Friday 15:30 EDT -> Monday 09:30 EST
    // Half-hourly from 01:15: the repeated 01:xx runs in both its hours, the skipped 02:xx just after the jump.
    const night = { frequency: '30min' as const, activeHours: { start: '01:15', end: '02:50' }, daysActive: ['Sunday'] as TWeekday[], timeZone: 'America/New_York' };
    expect(next(night, '2027-11-07T05:15:00Z')).toBe('2027-11-07T05:45:00.000Z'); // 01:15 EDT -> 01:45 EDT
    expect(next(night, '2027-11-07T05:45:00Z')).toBe('2027-11-07T06:15:00.000Z'); // 01:45 EDT -> 01:15 EST
    expect(next(night, '2027-11-07T06:45:00Z')).toBe('2027-11-07T07:15:00.000Z'); // 01:45 EST -> 02:15 EST
    expect(next(night, '2027-03-14T06:45:00Z')).toBe('2027-03-14T07:15:00.000Z'); // 01:45 EST -> 02:15 (skipped) = 03:15 EDT
  });

  it('runs a schedule stored with the former 1min value as Real-time (every minute)', () => {
    const stored = { frequency: '1min', daysActive: ALL_DAYS, timeZone: 'UTC' } as unknown as TSchedule;
    expect(computeNextRunAt(stored, new Date('2024-06-03T10:00:30Z'))?.toISOString()).toBe('2024-06-03T10:01:00.000Z');
  });

  it('runs minute frequencies up to the last minute of the active hours', () => {
    const crypto = { frequency: 'realtime' as const, activeHours: { start: '00:00', end: '23:59' }, timeZone: 'Europe/Paris' };
    expect(next(crypto, '2024-06-03T21:58:30Z')).toBe('2024-06-03T21:59:00.000Z'); // 23:58:30 -> 23:59 local
    expect(next({ ...crypto, activeHours: { start: '09:00', end: '17:00' } }, '2024-06-03T15:00:00Z')).toBe('2024-06-04T07:00:00.000Z');
  });

  it('runs daily at the start of the active hours, today if still ahead', () => {
    const daily = { frequency: 'daily' as const, activeHours: { start: '09:30', end: '16:00' }, timeZone: 'Asia/Tokyo' };
    expect(next(daily, '2024-06-03T00:00:00Z')).toBe('2024-06-03T00:30:00.000Z'); // 09:00 JST -> 09:30 today
    expect(next(daily, '2024-06-03T00:30:00Z')).toBe('2024-06-04T00:30:00.000Z'); // exactly 09:30 -> tomorrow
  });

  it('runs weekly on the first active day of the week (Monday first) at the start', () => {
    const weekly = { frequency: 'weekly' as const, activeHours: { start: '09:30', end: '16:00' }, daysActive: ['Wednesday', 'Monday'] as TWeekday[] };
    expect(next(weekly, '2024-06-03T09:00:00Z')).toBe('2024-06-03T09:30:00.000Z'); // Monday before the start
    expect(next(weekly, '2024-06-03T10:00:00Z')).toBe('2024-06-10T09:30:00.000Z'); // Monday after it: next Monday
    expect(next(weekly, '2024-06-05T10:00:00Z')).toBe('2024-06-10T09:30:00.000Z'); // Wednesday
  });

  it('aligns minute slots to local boundaries in zones with a 45-minute offset', () => {
    // Kathmandu is UTC+05:45: 05:45 local -> 06:00 local, which is 00:15 UTC.
    expect(next({ frequency: '30min', timeZone: 'Asia/Kathmandu' }, '2024-06-03T00:00:00Z')).toBe('2024-06-03T00:15:00.000Z');
  });

  describe('daylight saving (Europe/Paris: 2024-03-31 02:00 -> 03:00, 2024-10-27 03:00 -> 02:00)', () => {
    const paris = { timeZone: 'Europe/Paris' };

    it('keeps 09:30 at 09:30 local across the change', () => {
      const daily = { ...paris, frequency: 'daily' as const, activeHours: { start: '09:30', end: '17:00' } };
      expect(next(daily, '2024-03-30T09:00:00Z')).toBe('2024-03-31T07:30:00.000Z'); // CEST, UTC+2
      expect(next(daily, '2024-10-26T09:00:00Z')).toBe('2024-10-27T08:30:00.000Z'); // CET, UTC+1
    });

    it('runs a skipped wall time just after the jump', () => {
      const daily = { ...paris, frequency: 'daily' as const, activeHours: { start: '02:30', end: '05:00' } };
      expect(next(daily, '2024-03-30T12:00:00Z')).toBe('2024-03-31T01:30:00.000Z'); // 03:30 CEST
      expect(next({ ...paris, frequency: 'realtime' }, '2024-03-31T00:59:30Z')).toBe('2024-03-31T01:00:00.000Z'); // 01:59 CET -> 03:00 CEST
    });

    it('neither skips nor repeats the hour that happens twice', () => {
      expect(next({ ...paris, frequency: 'realtime' }, '2024-10-27T00:59:30Z')).toBe('2024-10-27T01:00:00.000Z'); // 02:59 CEST -> 02:00 CET
      expect(next({ ...paris, frequency: 'realtime' }, '2024-10-27T01:10:30Z')).toBe('2024-10-27T01:11:00.000Z'); // inside the second 02:xx
      expect(next({ ...paris, frequency: 'hourly' }, '2024-10-27T00:30:00Z')).toBe('2024-10-27T01:00:00.000Z'); // 02:30 CEST -> 02:00 CET
      expect(next({ ...paris, frequency: 'hourly' }, '2024-10-27T01:00:00Z')).toBe('2024-10-27T02:00:00.000Z'); // 02:00 CET -> 03:00 CET
    });
  });

  it('matches a minute-by-minute walk for minute frequencies, around clock changes and on ordinary days', () => {
    const zones = ['America/New_York', 'Europe/Paris', 'Australia/Lord_Howe', 'Asia/Kathmandu', 'UTC'];
    const starts = ['2024-03-09T20:00:00Z', '2024-03-30T20:00:00Z', '2024-04-06T10:00:00Z', '2024-10-26T20:00:00Z', '2024-11-02T20:00:00Z', '2024-06-14T11:17:45Z'];
    const cases: Array<Pick<TSchedule, 'frequency' | 'activeHours' | 'daysActive'>> = [
      { frequency: 'realtime', daysActive: ALL_DAYS },
      { frequency: '15min', daysActive: ALL_DAYS, activeHours: { start: '00:00', end: '23:59' } },
      { frequency: '30min', daysActive: ['Sunday'], activeHours: { start: '01:00', end: '04:00' } },
      { frequency: 'hourly', daysActive: WORK_DAYS, activeHours: { start: '09:30', end: '16:00' } },
    ];
    let checked = 0;
    for (const timeZone of zones) {
      for (const start of starts) {
        for (const [i, schedule] of cases.entries()) {
          // Spread the starting instants over the hours around each clock change.
          const now = new Date(new Date(start).getTime() + ((checked * 37 + i * 101) % 720) * 60_000 + 17_000);
          const expected = walk({ ...schedule, timeZone }, now);
          expect(computeNextRunAt({ ...schedule, timeZone }, now)?.toISOString(), `${timeZone} ${schedule.frequency} after ${now.toISOString()}`).toBe(expected);
          checked++;
        }
      }
    }
  });

  it('matches the walk minute by minute through each fall-back and spring-forward', () => {
    const changes: Array<[string, string]> = [
      ['America/New_York', '2024-11-03T06:00:00Z'],
      ['America/New_York', '2024-03-10T07:00:00Z'],
      ['Europe/Paris', '2024-10-27T01:00:00Z'],
      ['Australia/Lord_Howe', '2024-04-06T15:00:00Z'], // a 30-minute change
    ];
    for (const [timeZone, at] of changes) {
      for (const frequency of ['realtime', '15min', 'hourly'] as const) {
        for (let minutes = -150; minutes <= 150; minutes += 7) {
          const now = new Date(new Date(at).getTime() + minutes * 60_000 + 29_000);
          const schedule = { frequency, daysActive: ALL_DAYS, timeZone };
          expect(computeNextRunAt(schedule, now)?.toISOString(), `${timeZone} ${frequency} after ${now.toISOString()}`).toBe(walk(schedule, now));
        }
      }
    }
  });
});

/** The reference: try every real minute after `now` and read it in the zone (slots count from the start of the hours). */
function walk(schedule: TSchedule, now: Date): string {
  const step = { realtime: 1, '5min': 5, '15min': 15, '30min': 30, hourly: 60 }[schedule.frequency as string]!;
  const format = new Intl.DateTimeFormat('en-US', { timeZone: schedule.timeZone, weekday: 'long', hour: 'numeric', minute: 'numeric', hourCycle: 'h23' });
  const toMinutes = (hhmm: string) => Number(hhmm.slice(0, 2)) * 60 + Number(hhmm.slice(3));
  const [from, to] = schedule.activeHours ? [toMinutes(schedule.activeHours.start), toMinutes(schedule.activeHours.end)] : [0, 1439];
  for (let t = Math.floor(now.getTime() / 60_000) * 60_000 + 60_000; ; t += 60_000) {
    const parts = Object.fromEntries(format.formatToParts(t).map((p) => [p.type, p.value]));
    const minute = Number(parts.hour) * 60 + Number(parts.minute);
    if (schedule.daysActive.includes(parts.weekday as TWeekday) && minute >= from && minute <= to && (minute - from) % step === 0) return new Date(t).toISOString();
  }
}
