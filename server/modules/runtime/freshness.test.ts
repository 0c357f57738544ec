import { describe, expect, it } from 'vitest';
import { isStale, staleSentence } from './freshness.ts';

const HOUR = 3_600_000;
const DAY = 24 * HOUR;

describe('isStale', () => {
  const now = new Date('2026-03-04T15:20:00Z'); // a Wednesday

  it('allows the candle in progress and the one before, no older (crypto, hourly)', () => {
    expect(isStale('kraken', '1h', Date.parse('2026-03-04T15:00:00Z'), now)).toBe(false);
    expect(isStale('kraken', '1h', Date.parse('2026-03-04T14:00:00Z'), now)).toBe(false);
    expect(isStale('kraken', '1h', Date.parse('2026-03-04T13:00:00Z'), now)).toBe(true);
  });

  it("keeps a stock's last session current over a long weekend, not for longer", () => {
    // Friday's last hourly candle, read on Tuesday morning after a Monday holiday.
    const friday = Date.parse('2026-03-06T20:00:00Z');
    expect(isStale('yahoo', '1h', friday, new Date(friday + 3 * DAY + 14 * HOUR))).toBe(false);
    expect(isStale('yahoo', '1h', friday, new Date(friday + 4 * DAY + 3 * HOUR))).toBe(true);
  });
});

describe('staleSentence', () => {
  const now = new Date('2026-03-04T15:20:00Z');

  it("names the exchange and the latest candle's time in the zone given, with the zone", () => {
    expect(staleSentence('kraken', Date.parse('2026-03-04T15:00:00Z'), now, 'UTC')).toBe('no fresh data from Kraken since 15:00 UTC');
    expect(staleSentence('htx', Date.parse('2026-03-04T09:00:00Z'), now, 'Europe/Paris')).toBe('no fresh data from Huobi since 10:00 GMT+1');
    // 15:20 UTC is 00:20 the next day in Tokyo: 09:00 UTC there is yesterday, so the day is said.
    expect(staleSentence('kraken', Date.parse('2026-03-04T09:00:00Z'), now, 'Asia/Tokyo')).toBe('no fresh data from Kraken since Mar 4, 18:00 GMT+9');
  });

  it('adds the day when it is not today, and the year when it is not this year', () => {
    expect(staleSentence('binance', Date.parse('2026-03-01T08:00:00Z'), now, 'UTC')).toBe('no fresh data from Binance since Mar 1, 08:00 UTC');
    expect(staleSentence('yahoo', Date.parse('2024-11-20T14:30:00Z'), now, 'UTC')).toBe('no fresh data from Yahoo Finance since Nov 20, 2024 14:30 UTC');
  });
});
