import { describe, expect, it } from 'vitest';
import {
  instantOfWallTime,
  wallTimeOf,
  calendarDaysBetween,
  CLOCK,
  DATE,
  DATE_TIME,
  DAY_TIME,
  dayOf,
  formatInZone,
  formatSince,
  formatTime,
  RUN_TIME,
  zoneLabel,
} from './time-format.ts';
import { formatDate, isTimeZone, zoneOr } from './time-zone.ts';

// Every expectation is worked out by hand from the instant (UTC) and the zone's offset, so none
// depends on the machine's zone or today's date.

describe('formatTime', () => {
  const at = '2026-01-05T09:00:00.000Z';

  it("writes SPEC's formats in the zone it is given, the zone named after a time of day", () => {
    expect(formatTime(at, DATE_TIME, 'Asia/Tokyo')).toBe('Jan 5, 2026 18:00 GMT+9');
    expect(formatTime(at, DATE_TIME, 'America/New_York')).toBe('Jan 5, 2026 04:00 EST');
    expect(formatTime(at, DATE_TIME, 'UTC')).toBe('Jan 5, 2026 09:00 UTC');
    expect(formatTime(at, DATE_TIME, 'Europe/Paris')).toBe('Jan 5, 2026 10:00 GMT+1');
    expect(formatTime('2026-01-05T09:00:07.000Z', RUN_TIME, 'Asia/Kolkata')).toBe('Jan 5, 14:30:07 GMT+5:30');
    expect(formatTime(at, DAY_TIME, 'Asia/Tokyo')).toBe('Jan 5, 18:00 GMT+9');
    expect(formatTime(at, CLOCK, 'Asia/Tokyo')).toBe('18:00 GMT+9');
  });

  it('writes a date alone without a zone, on the calendar day of that zone', () => {
    // 23:30 in New York on Jan 4 is already Jan 5 in Tokyo.
    const lateEvening = '2026-01-05T04:30:00.000Z';
    expect(formatTime(lateEvening, DATE, 'America/New_York')).toBe('Jan 4, 2026');
    expect(formatTime(lateEvening, DATE, 'Asia/Tokyo')).toBe('Jan 5, 2026');
  });

  it('is 24-hour: midnight is 00:00, never 24:00 or 12:00 AM', () => {
    expect(formatTime('2026-11-27T00:00:00.000Z', DATE_TIME, 'UTC')).toBe('Nov 27, 2026 00:00 UTC');
    expect(formatTime('2026-11-27T12:05:00.000Z', CLOCK, 'UTC')).toBe('12:05 UTC');
    expect(formatTime('2026-11-27T23:59:59.000Z', RUN_TIME, 'UTC')).toBe('Nov 27, 23:59:59 UTC');
  });

  it("follows daylight-saving changes: the label tells New York's repeated hour apart", () => {
    // Spring forward, Mar 14, 2027: 01:59 EST is followed by 03:00 EDT.
    expect(formatTime('2027-03-14T06:59:00.000Z', DATE_TIME, 'America/New_York')).toBe('Mar 14, 2027 01:59 EST');
    expect(formatTime('2027-03-14T07:00:00.000Z', DATE_TIME, 'America/New_York')).toBe('Mar 14, 2027 03:00 EDT');
    // Fall back, Nov 7, 2027: 01:30 happens twice, once in each.
    expect(formatTime('2027-11-07T05:30:00.000Z', CLOCK, 'America/New_York')).toBe('01:30 EDT');
    expect(formatTime('2027-11-07T06:30:00.000Z', CLOCK, 'America/New_York')).toBe('01:30 EST');
    // Paris changes on another day (Mar 28, 2027), and is named by its offset.
    expect(zoneLabel('2027-03-28T00:30:00.000Z', 'Europe/Paris')).toBe('GMT+1');
    expect(zoneLabel('2027-03-28T01:30:00.000Z', 'Europe/Paris')).toBe('GMT+2');
  });

  it('takes a Date, epoch ms or an ISO string, and gives the fallback for no time or a bad one', () => {
    const ms = Date.parse(at);
    expect(formatTime(new Date(ms), CLOCK, 'UTC')).toBe('09:00 UTC');
    expect(formatTime(ms, CLOCK, 'UTC')).toBe('09:00 UTC');
    expect(formatTime(null, DATE_TIME, 'UTC', 'Never')).toBe('Never');
    expect(formatTime(undefined, DATE_TIME, 'UTC', 'Never')).toBe('Never');
    expect(formatTime('not a time', DATE_TIME, 'UTC', 'unknown')).toBe('unknown');
  });
});

describe('formatInZone', () => {
  it('writes the pattern without the zone (a chart axis names it once)', () => {
    expect(formatInZone('2026-01-05T09:00:00.000Z', 'HH:mm', 'Asia/Tokyo')).toBe('18:00');
    expect(formatInZone('2026-01-05T09:00:00.000Z', 'MMM d', 'Asia/Tokyo')).toBe('Jan 5');
    expect(formatInZone('2026-12-31T20:00:00.000Z', 'yyyy', 'Asia/Tokyo')).toBe('2027');
  });

  it('refuses a token it does not write, instead of writing it wrong', () => {
    expect(() => formatInZone(0, 'EEE HH:mm', 'UTC')).toThrow(/unsupported token 'EEE'/);
  });
});

describe('zones', () => {
  it('knows IANA zones and falls back for an unknown or missing one', () => {
    expect(isTimeZone('Asia/Tokyo')).toBe(true);
    expect(isTimeZone('Mars/Olympus_Mons')).toBe(false);
    expect(zoneOr('Asia/Tokyo')).toBe('Asia/Tokyo');
    expect(zoneOr(null)).toBe('UTC');
    expect(zoneOr('Mars/Olympus_Mons')).toBe('UTC');
    expect(zoneOr(undefined, 'America/New_York')).toBe('America/New_York');
  });
});

describe("formatDate (the page shell's date, without the patterns)", () => {
  it("writes SPEC's 'MMM d, yyyy' exactly as the patterns do, on the zone's calendar", () => {
    const zones = ['UTC', 'America/New_York', 'Asia/Tokyo', 'Pacific/Kiritimati', 'Pacific/Pago_Pago'];
    // Every month, at an hour that falls on another day in some zone.
    const instants = Array.from({ length: 12 }, (_, month) => Date.UTC(2025, month, month + 1, month * 2));
    for (const zone of zones) for (const at of instants) expect(formatDate(at, zone)).toBe(formatTime(at, DATE, zone));
    expect(formatDate('2025-11-27T03:30:00.000Z', 'America/New_York')).toBe('Nov 26, 2025');
    expect(formatDate('2025-11-27T03:30:00.000Z', 'Asia/Tokyo')).toBe('Nov 27, 2025');
    expect(formatDate('not a date', 'UTC', '2025-11-27')).toBe('2025-11-27');
  });
});

describe('calendar days', () => {
  it('counts days in the zone given, not in UTC', () => {
    const now = '2026-01-05T01:00:00.000Z'; // Jan 5, 10:00 in Tokyo; Jan 4, 20:00 in New York
    const earlier = '2026-01-04T14:00:00.000Z'; // Jan 4, 23:00 in Tokyo; Jan 4, 09:00 in New York
    expect(dayOf(now, 'Asia/Tokyo')).toBe('2026-01-05');
    expect(dayOf(now, 'America/New_York')).toBe('2026-01-04');
    expect(calendarDaysBetween(now, earlier, 'Asia/Tokyo')).toBe(1);
    expect(calendarDaysBetween(now, earlier, 'America/New_York')).toBe(0);
    // Across a daylight-saving change the count is still in whole days.
    expect(calendarDaysBetween('2027-03-15T12:00:00.000Z', '2027-03-13T12:00:00.000Z', 'America/New_York')).toBe(2);
  });
});

describe('formatSince', () => {
  const now = '2026-03-04T16:00:00.000Z';
  it('is as short as reads unambiguously: the time today, the day within the year, the year before', () => {
    expect(formatSince('2026-03-04T15:00:00.000Z', now, 'UTC')).toBe('15:00 UTC');
    // 16:00 UTC is already the next day in Tokyo (01:00 on Mar 5): 'today' is the zone's.
    expect(formatSince('2026-03-04T09:00:00.000Z', now, 'Asia/Tokyo')).toBe('Mar 4, 18:00 GMT+9');
    expect(formatSince('2026-03-04T15:30:00.000Z', now, 'Asia/Tokyo')).toBe('00:30 GMT+9');
    expect(formatSince('2026-03-04T15:00:00.000Z', now, 'America/New_York')).toBe('10:00 EST');
    expect(formatSince('2026-03-01T08:00:00.000Z', now, 'UTC')).toBe('Mar 1, 08:00 UTC');
    expect(formatSince('2024-01-05T09:00:00.000Z', now, 'Asia/Tokyo')).toBe('Jan 5, 2024 18:00 GMT+9');
  });
});

describe('wall times in a zone (a datetime-local field in the owner’s zone)', () => {
  it('reads a wall time as its instant in the zone, across a clock change, and back', () => {
    expect(instantOfWallTime('2026-11-28T09:00', 'Asia/Tokyo')!.toISOString()).toBe('2026-11-28T00:00:00.000Z');
    expect(instantOfWallTime('2026-07-01T09:00', 'Europe/Paris')!.toISOString()).toBe('2026-07-01T07:00:00.000Z');
    expect(instantOfWallTime('2026-01-01T09:00', 'Europe/Paris')!.toISOString()).toBe('2026-01-01T08:00:00.000Z');
    // Paris springs forward at 02:00 on March 29, 2026: 09:00 that day is summer time.
    expect(instantOfWallTime('2026-03-29T09:00', 'Europe/Paris')!.toISOString()).toBe('2026-03-29T07:00:00.000Z');
    expect(instantOfWallTime('2026-11-28 09:00', 'UTC')).toBeNull();
    expect(wallTimeOf('2026-11-28T00:00:00Z', 'Asia/Tokyo')).toBe('2026-11-28T09:00');
    expect(wallTimeOf('2026-03-29T07:00:00Z', 'Europe/Paris')).toBe('2026-03-29T09:00');
    expect(instantOfWallTime('2026-12-01T09:00', 'Europe/Paris')!.toISOString()).toBe('2026-12-01T08:00:00.000Z');
    expect(instantOfWallTime('2026-07-01T09:00', 'Asia/Tokyo')!.toISOString()).toBe('2026-07-01T00:00:00.000Z');
    expect(wallTimeOf('2026-07-01T07:00:00.000Z', 'Europe/Paris')).toBe('2026-07-01T09:00');
    expect(wallTimeOf('', 'UTC')).toBe('');
    expect(instantOfWallTime('2026-07-01', 'UTC')).toBeNull();
  });

  it('takes a time the clocks skip as the hour after, and a repeated one as its first, east and west of UTC', () => {
    // Paris springs from 02:00 to 03:00 on Mar 29, 2026 and falls back from 03:00 to 02:00 on Oct 25.
    expect(instantOfWallTime('2026-03-29T02:30', 'Europe/Paris')!.toISOString()).toBe('2026-03-29T01:30:00.000Z');
    expect(wallTimeOf('2026-03-29T01:30:00.000Z', 'Europe/Paris')).toBe('2026-03-29T03:30');
    expect(instantOfWallTime('2026-10-25T02:30', 'Europe/Paris')!.toISOString()).toBe('2026-10-25T00:30:00.000Z');
    // New York springs from 02:00 to 03:00 on Mar 8, 2026 and falls back from 02:00 to 01:00 on Nov 1.
    expect(instantOfWallTime('2026-03-08T02:30', 'America/New_York')!.toISOString()).toBe('2026-03-08T07:30:00.000Z');
    expect(instantOfWallTime('2026-11-01T01:30', 'America/New_York')!.toISOString()).toBe('2026-11-01T05:30:00.000Z');
    // Lord Howe moves by half an hour: back from 02:00 to 01:30 on Apr 5, 2026 (01:45 comes twice).
    expect(instantOfWallTime('2026-04-05T01:45', 'Australia/Lord_Howe')!.toISOString()).toBe('2026-04-04T14:45:00.000Z');
    // The hours next to a change read as they always do.
    expect(instantOfWallTime('2026-10-25T01:30', 'Europe/Paris')!.toISOString()).toBe('2026-10-24T23:30:00.000Z');
    expect(instantOfWallTime('2026-10-25T03:30', 'Europe/Paris')!.toISOString()).toBe('2026-10-25T02:30:00.000Z');
  });
});
