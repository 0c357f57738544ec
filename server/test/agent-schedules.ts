import { eq, inArray } from 'drizzle-orm';
import type { Db } from '../db/client.ts';
import { agentSchedules, agents } from '../db/schema.ts';
import { findAgent } from '../modules/agents/agents.repo.ts';

/**
 * Sets agents' next slot in SQL, as a test arranges a due slot without the API (the runtime's
 * state is in agent_schedules, docs/decisions/0103); with `status`, their status too ('paused'
 * clears the slot, as pausing does).
 */
export async function scheduleAgents(db: Db, agentIds: string | readonly string[], nextRunAt: Date | null, status?: 'running' | 'paused'): Promise<void> {
  const ids = typeof agentIds === 'string' ? [agentIds] : [...agentIds];
  if (ids.length === 0) return;
  if (status) await db.update(agents).set({ status }).where(inArray(agents.id, ids));
  await db
    .update(agentSchedules)
    .set({ nextRunAt: status === 'paused' ? null : nextRunAt })
    .where(inArray(agentSchedules.agentId, ids));
}

/**
 * An agent's runtime state: its next slot as stored, and its last run and performance as its runs
 * give them (docs/decisions/0104), read as the agents list reads them.
 */
export async function scheduleOf(db: Db, agentId: string): Promise<{ nextRunAt: Date | null; lastRunAt: Date | null; performance: string | null }> {
  const [row] = await db.select({ nextRunAt: agentSchedules.nextRunAt }).from(agentSchedules).where(eq(agentSchedules.agentId, agentId));
  if (!row) throw new Error(`agent ${agentId} has no schedule row`);
  const [agent] = await db.select({ ownerId: agents.ownerId }).from(agents).where(eq(agents.id, agentId));
  const found = await findAgent(db, agentId, agent!.ownerId);
  return { nextRunAt: row.nextRunAt, lastRunAt: found!.lastRunAt, performance: found!.performance };
}
