import type { TTrigger } from '../../../contracts/conditions.ts';

/**
 * What a condition's trigger (decision 0071) makes of a met condition. Pure: live runs pass the
 * stored state, the test on history an in-memory one, so both decide alike. Every time is an
 * instant (epoch ms, UTC): a cooldown is real minutes, whatever a zone's clocks do meanwhile.
 */

export type TriggerState = { disarmed: boolean; snoozedUntil: number | null; lastNotifiedAt: number | null; lastNotifiedCandle: number | null };

export const INITIAL_TRIGGER_STATE: TriggerState = Object.freeze({ disarmed: false, snoozedUntil: null, lastNotifiedAt: null, lastNotifiedCandle: null });

export type TriggerDelivery = 'notified' | 'snoozed' | 'cooldown' | 'repeat';

/**
 * What a met condition on candle `candleTime` (its open time) at `now` becomes: notified (and the
 * state after), or recorded without notifying: 'snoozed', 'cooldown', or 'repeat' (already
 * notified for this candle). 'disarmed' and 'expired' conditions are not evaluated at all
 * (check `conditionStatus` first).
 */
export function decideTrigger(trigger: TTrigger, state: TriggerState, candleTime: number, now: number): { delivery: TriggerDelivery; state: TriggerState } {
  if (state.snoozedUntil !== null && state.snoozedUntil > now) return { delivery: 'snoozed', state };
  if (state.lastNotifiedCandle === candleTime) return { delivery: 'repeat', state };
  const cooldownMs = (trigger.cooldownMinutes ?? 0) * 60_000;
  if (cooldownMs > 0 && state.lastNotifiedAt !== null && state.lastNotifiedAt + cooldownMs > now) return { delivery: 'cooldown', state };
  return {
    delivery: 'notified',
    state: { ...state, lastNotifiedAt: now, lastNotifiedCandle: candleTime, disarmed: state.disarmed || trigger.mode === 'once' },
  };
}

// Expiry instants read once per trigger (a test on history asks at every met candle).
const expiries = new WeakMap<TTrigger, number>();
function expiryOf(trigger: TTrigger): number {
  let at = expiries.get(trigger);
  if (at === undefined) {
    at = trigger.expiresAt === undefined ? Infinity : Date.parse(trigger.expiresAt);
    expiries.set(trigger, at);
  }
  return at;
}

/** Whether a condition is evaluated at `now`: not when its expiry has come, nor when a 'once' one has fired. */
export function conditionStatus(trigger: TTrigger, state: TriggerState, now: number): 'active' | 'expired' | 'disarmed' {
  if (expiryOf(trigger) <= now) return 'expired';
  if (state.disarmed) return 'disarmed';
  return 'active';
}
