import { and, eq, inArray, notInArray, sql } from 'drizzle-orm';
import type { Db } from '../../db/client.ts';
import { conditionControls, conditionStates } from '../../db/schema.ts';

/** Any connection or transaction: these run inside the caller's transaction. */
export type Tx = Pick<Db, 'select' | 'insert' | 'update' | 'delete' | 'execute'>;

/**
 * A condition's trigger state on one market as the trigger decision reads it (times in ms): the
 * condition's own controls (disarmed, snoozed, docs/decisions/0073) with the market's last
 * notification. The same shape as the engine's TriggerState.
 */
export type ConditionTriggerState = { disarmed: boolean; snoozedUntil: number | null; lastNotifiedAt: number | null; lastNotifiedCandle: number | null };

/** What a run leaves of a condition on a market after it notified (or was held). */
export type ConditionStateWrite = { agentId: string; conditionId: string; market: string; lastNotifiedAt: Date; lastNotifiedCandle: number; disarm: boolean };

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

/**
 * Records what a batch's runs notified (in the alerts' transaction): each (condition, market)'s
 * last notification, and 'only once' conditions disarmed. One statement each, rows in key order.
 */
export async function writeConditionStates(tx: Tx, writes: readonly ConditionStateWrite[]): Promise<void> {
  if (writes.length === 0) return;
  // One row per key: a later write of the same key (an agent's two markets cannot share one) wins.
  const byKey = new Map(writes.map((w) => [`${w.agentId}|${w.conditionId}|${w.market}`, w]));
  const sorted = [...byKey.entries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)).map(([, w]) => w);
  const rows = JSON.stringify(sorted.map((w) => ({ agent_id: w.agentId, condition_id: w.conditionId, market: w.market, at: w.lastNotifiedAt.toISOString(), candle: w.lastNotifiedCandle })));
  await tx.execute(sql`
    insert into ${conditionStates} (agent_id, condition_id, market, last_notified_at, last_notified_candle)
    select v.agent_id, v.condition_id, v.market, v.at, v.candle
    from jsonb_to_recordset(${rows}::jsonb) as v(agent_id uuid, condition_id uuid, market text, at timestamptz, candle bigint)
    on conflict (agent_id, condition_id, market) do update set last_notified_at = excluded.last_notified_at, last_notified_candle = excluded.last_notified_candle`);
  const disarmed = [...new Map(sorted.filter((w) => w.disarm).map((w) => [`${w.agentId}|${w.conditionId}`, { agent_id: w.agentId, condition_id: w.conditionId }])).values()];
  if (disarmed.length === 0) return;
  await tx.execute(sql`
    insert into ${conditionControls} (agent_id, condition_id, disarmed)
    select v.agent_id, v.condition_id, true from jsonb_to_recordset(${JSON.stringify(disarmed)}::jsonb) as v(agent_id uuid, condition_id uuid)
    on conflict (agent_id, condition_id) do update set disarmed = true`);
}

/** Snoozes the condition on all its markets until `until` (null: unsnoozes it). */
export async function setSnooze(db: Tx, agentId: string, conditionId: string, until: Date | null): Promise<void> {
  await db
    .insert(conditionControls)
    .values({ agentId, conditionId, snoozedUntil: until })
    .onConflictDoUpdate({ target: [conditionControls.agentId, conditionControls.conditionId], set: { snoozedUntil: until } });
}

/** Re-arms a condition that disarmed itself ('only once'): it may notify again. */
export async function rearm(db: Tx, agentId: string, conditionId: string): Promise<void> {
  await db
    .update(conditionControls)
    .set({ disarmed: false })
    .where(and(eq(conditionControls.agentId, agentId), eq(conditionControls.conditionId, conditionId)));
}

export type ConditionStateRow = { conditionId: string; disarmed: boolean; snoozedUntil: Date | null; lastNotifiedAt: Date | null };

/** The state of each of the given conditions of the agent (controls, and the latest notification on any market). */
export async function findConditionStates(db: Tx, agentId: string, conditionIds: readonly string[]): Promise<ConditionStateRow[]> {
  if (conditionIds.length === 0) return [];
  const controls = await db
    .select()
    .from(conditionControls)
    .where(and(eq(conditionControls.agentId, agentId), inArray(conditionControls.conditionId, [...conditionIds])));
  const latest = await db
    .select({ conditionId: conditionStates.conditionId, at: sql<string | null>`max(${conditionStates.lastNotifiedAt})` })
    .from(conditionStates)
    .where(and(eq(conditionStates.agentId, agentId), inArray(conditionStates.conditionId, [...conditionIds])))
    .groupBy(conditionStates.conditionId);
  const control = new Map(controls.map((c) => [c.conditionId, c]));
  const notified = new Map(latest.map((l) => [l.conditionId, l.at === null ? null : new Date(l.at)]));
  return conditionIds.map((conditionId) => ({
    conditionId,
    disarmed: control.get(conditionId)?.disarmed ?? false,
    snoozedUntil: control.get(conditionId)?.snoozedUntil ?? null,
    lastNotifiedAt: notified.get(conditionId) ?? null,
  }));
}

/** A config change dropped some conditions: their state goes with them (an id never comes back). */
export async function deleteStatesExcept(db: Tx, agentId: string, keep: readonly string[]): Promise<void> {
  const except = (column: typeof conditionStates.conditionId | typeof conditionControls.conditionId) => (keep.length === 0 ? undefined : notInArray(column, [...keep]));
  await db.delete(conditionStates).where(and(eq(conditionStates.agentId, agentId), except(conditionStates.conditionId)));
  await db.delete(conditionControls).where(and(eq(conditionControls.agentId, agentId), except(conditionControls.conditionId)));
}
