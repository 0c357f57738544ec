import { describe, expect, it } from 'vitest';
import type { TTrigger } from '../../../contracts/conditions.ts';
import { conditionStatus, decideTrigger, INITIAL_TRIGGER_STATE, type TriggerState } from './trigger.ts';

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
const T = Date.UTC(2026, 10, 2, 10); // a candle's open time

/** Met on each of `candles` (open times) at each `now`, in order: the deliveries and the last state. */
function replay(trigger: TTrigger, events: Array<[candle: number, now: number]>, state: TriggerState = INITIAL_TRIGGER_STATE) {
  const deliveries: string[] = [];
  for (const [candle, now] of events) {
    if (conditionStatus(trigger, state, now) !== 'active') {
      deliveries.push(conditionStatus(trigger, state, now));
      continue;
    }
    const decided = decideTrigger(trigger, state, candle, now);
    deliveries.push(decided.delivery);
    state = decided.state;
  }
  return { deliveries, state };
}

describe('trigger modes', () => {
  it("'once' notifies the first time, then disarms itself until re-armed", () => {
    const { deliveries, state } = replay({ mode: 'once' }, [
      [T, T + HOUR],
      [T + HOUR, T + 2 * HOUR],
    ]);
    expect(deliveries).toEqual(['notified', 'disarmed']);
    expect(state).toEqual({ disarmed: true, snoozedUntil: null, lastNotifiedAt: T + HOUR, lastNotifiedCandle: T });
    // Re-armed (the details' Re-arm clears `disarmed`): it notifies again.
    expect(replay({ mode: 'once' }, [[T + 2 * HOUR, T + 3 * HOUR]], { ...state, disarmed: false }).deliveries).toEqual(['notified']);
  });

  it("'once-per-candle': the forming candle may notify once; later runs on the same candle are repeats", () => {
    const { deliveries, state } = replay({ mode: 'once-per-candle' }, [
      [T, T + 10 * MINUTE],
      [T, T + 20 * MINUTE],
      [T + HOUR, T + HOUR + 10 * MINUTE],
    ]);
    expect(deliveries).toEqual(['notified', 'repeat', 'notified']);
    expect(state.disarmed).toBe(false);
    expect(state.lastNotifiedCandle).toBe(T + HOUR);
  });

  it("'once-per-close': each closed candle notifies once", () => {
    const { deliveries } = replay({ mode: 'once-per-close' }, [
      [T, T + HOUR],
      [T, T + HOUR + 5 * MINUTE],
      [T + HOUR, T + 2 * HOUR],
    ]);
    expect(deliveries).toEqual(['notified', 'repeat', 'notified']);
  });

  it('snoozed until a time: recorded, not notified, state unchanged; notifies again once the time has come', () => {
    const snoozed: TriggerState = { ...INITIAL_TRIGGER_STATE, snoozedUntil: T + 2 * HOUR };
    const decided = decideTrigger({ mode: 'once-per-close' }, snoozed, T, T + HOUR);
    expect(decided).toEqual({ delivery: 'snoozed', state: snoozed });
    expect(decideTrigger({ mode: 'once-per-close' }, snoozed, T + HOUR, T + 2 * HOUR).delivery).toBe('notified');
  });
});

describe('expiry', () => {
  it('expired at its instant and after; active before', () => {
    const trigger: TTrigger = { mode: 'once-per-close', expiresAt: '2026-11-02T12:00:00.000Z' };
    expect(conditionStatus(trigger, INITIAL_TRIGGER_STATE, Date.UTC(2026, 10, 2, 11, 59, 59, 999))).toBe('active');
    expect(conditionStatus(trigger, INITIAL_TRIGGER_STATE, Date.UTC(2026, 10, 2, 12))).toBe('expired');
    // Expired wins over disarmed: the details show Expired.
    expect(conditionStatus(trigger, { ...INITIAL_TRIGGER_STATE, disarmed: true }, Date.UTC(2026, 10, 3))).toBe('expired');
  });

  it('an expiry given with an offset is that instant (09:00 in Paris in winter is 08:00 UTC)', () => {
    const trigger: TTrigger = { mode: 'once', expiresAt: '2026-11-02T09:00:00+01:00' };
    expect(conditionStatus(trigger, INITIAL_TRIGGER_STATE, Date.UTC(2026, 10, 2, 7, 59))).toBe('active');
    expect(conditionStatus(trigger, INITIAL_TRIGGER_STATE, Date.UTC(2026, 10, 2, 8))).toBe('expired');
  });
});

describe('cooldown', () => {
  it('no second notification until cooldownMinutes have passed since the last one', () => {
    const trigger: TTrigger = { mode: 'once-per-close', cooldownMinutes: 90 };
    const { deliveries } = replay(trigger, [
      [T, T + HOUR],
      [T + HOUR, T + 2 * HOUR], // 60 min after: cooldown
      [T + 2 * HOUR, T + 2 * HOUR + 29 * MINUTE], // 89 min after
      [T + 2 * HOUR, T + 2 * HOUR + 30 * MINUTE], // 90 min after: notified
    ]);
    expect(deliveries).toEqual(['notified', 'cooldown', 'cooldown', 'notified']);
  });

  it('is real minutes across a daylight-saving change: 60 minutes spanning Paris\'s 2026-10-25 change are 60 minutes', () => {
    // Paris leaves summer time at 03:00 CEST = 01:00 UTC on 2026-10-25; its clocks read 02:xx twice.
    const notifiedAt = Date.UTC(2026, 9, 25, 0, 30); // 02:30 CEST
    const paris = (instant: number) => new Intl.DateTimeFormat('en-GB', { timeZone: 'Europe/Paris', hour: '2-digit', minute: '2-digit', timeZoneName: 'short' }).format(instant);
    expect(paris(notifiedAt)).toBe('02:30 CEST');
    const trigger: TTrigger = { mode: 'once-per-close', cooldownMinutes: 60 };
    const state = decideTrigger(trigger, INITIAL_TRIGGER_STATE, notifiedAt - HOUR, notifiedAt).state;
    // 59 real minutes later the wall clock reads 02:29 CET (earlier than 02:30!): still cooling down.
    expect(paris(notifiedAt + 59 * MINUTE)).toBe('02:29 CET');
    expect(decideTrigger(trigger, state, notifiedAt, notifiedAt + 59 * MINUTE).delivery).toBe('cooldown');
    // 60 real minutes later (02:30 CET, the same wall time as before): the cooldown is over.
    expect(paris(notifiedAt + 60 * MINUTE)).toBe('02:30 CET');
    expect(decideTrigger(trigger, state, notifiedAt, notifiedAt + 60 * MINUTE).delivery).toBe('notified');
  });

  it('a cooldown of 0 or none does not hold anything back', () => {
    for (const trigger of [{ mode: 'once-per-close' }, { mode: 'once-per-close', cooldownMinutes: 0 }] as TTrigger[]) {
      expect(replay(trigger, [
        [T, T + HOUR],
        [T + HOUR, T + HOUR + 1],
      ]).deliveries).toEqual(['notified', 'notified']);
    }
  });

  it('a repeat of the candle already notified is a repeat, not a cooldown', () => {
    const trigger: TTrigger = { mode: 'once-per-candle', cooldownMinutes: 30 };
    expect(replay(trigger, [
      [T, T + MINUTE],
      [T, T + 2 * MINUTE],
    ]).deliveries).toEqual(['notified', 'repeat']);
  });
});
