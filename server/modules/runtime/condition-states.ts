import { sql } from 'drizzle-orm';
import { conditionControls, conditionStates } from '../../db/schema.ts';

/**
 * A condition's trigger state on one market as the trigger decision reads it (times in ms): the
 * condition's own controls (disarmed, snoozed, docs/decisions/0073) with the market's last
 * notification. The same shape as the engine's TriggerState.
 */
export type ConditionTriggerState = { disarmed: boolean; snoozedUntil: number | null; lastNotifiedAt: number | null; lastNotifiedCandle: number | null };

/** The stored state of an agent's conditions, as startRuns reads it with each run (one JSON per agent). */
export type StoredConditionStates = {
  /** [conditionId, market, lastNotifiedAt (ISO) | null, lastNotifiedCandle | null] */
  markets: Array<[string, string, string | null, number | string | null]>;
  /** [conditionId, disarmed, snoozedUntil (ISO) | null] */
  controls: Array<[string, boolean, string | null]>;
};

/** The SQL startRuns selects per run (`agentId` is the run's agent): its conditions' state, or null when there is none. */
export const storedStatesSql = (agentId: ReturnType<typeof sql>) => sql`(
  select case when m.v is null and c.v is null then null else jsonb_build_object('markets', coalesce(m.v, '[]'::jsonb), 'controls', coalesce(c.v, '[]'::jsonb)) end
  from (select jsonb_agg(jsonb_build_array(s.condition_id, s.market, s.last_notified_at, s.last_notified_candle)) as v from ${conditionStates} s where s.agent_id = ${agentId}) m,
    (select jsonb_agg(jsonb_build_array(k.condition_id, k.disarmed, k.snoozed_until)) as v from ${conditionControls} k where k.agent_id = ${agentId}) c)`;

/** A reader of the stored states: each (condition, market)'s trigger state, initial where nothing is stored. */
export function triggerStates(stored: StoredConditionStates | null): (conditionId: string, market: string) => ConditionTriggerState {
  const controls = new Map((stored?.controls ?? []).map(([id, disarmed, until]) => [id, { disarmed, snoozedUntil: until === null ? null : Date.parse(until) }]));
  const markets = new Map(
    (stored?.markets ?? []).map(([id, market, at, candle]) => [`${id}|${market}`, { lastNotifiedAt: at === null ? null : Date.parse(at), lastNotifiedCandle: candle === null ? null : Number(candle) }]),
  );
  return (conditionId, market) => ({
    disarmed: controls.get(conditionId)?.disarmed ?? false,
    snoozedUntil: controls.get(conditionId)?.snoozedUntil ?? null,
    lastNotifiedAt: markets.get(`${conditionId}|${market}`)?.lastNotifiedAt ?? null,
    lastNotifiedCandle: markets.get(`${conditionId}|${market}`)?.lastNotifiedCandle ?? null,
  });
}

