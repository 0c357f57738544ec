import { and, eq, inArray, notInArray, sql } from 'drizzle-orm';
import type { Db } from '../../db/client.ts';
import { conditionControls, conditionStates } from '../../db/schema.ts';

type Tx = Pick<Db, 'select' | 'insert' | 'update' | 'delete' | 'execute'>;

/**
 * What the owner decides of their conditions (docs/decisions/0073): snooze, re-arm, and the state
 * the details show. The runtime reads the state with each run (runtime/condition-states.ts) and
 * the notifications write it with the alerts (notifications.repo.ts).
 */

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
