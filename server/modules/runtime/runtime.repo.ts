import { and, asc, eq, inArray, lt, lte, sql } from 'drizzle-orm';
import type { TAgentConfig } from '../../../contracts/agents.ts';
import type { TRunResult } from '../../../contracts/market.ts';
import type { Db } from '../../db/client.ts';
import { agentRuns, agents, users } from '../../db/schema.ts';

export type DueAgent = { id: string; config: TAgentConfig; nextRunAt: Date };

/**
 * Running agents whose slot has come, locked for this transaction. SKIP LOCKED lets several
 * dispatchers claim side by side: each row goes to exactly one of them.
 */
export async function claimDueAgents(tx: Db, now: Date, limit: number): Promise<DueAgent[]> {
  const rows = await tx
    .select({ id: agents.id, config: agents.config, nextRunAt: agents.nextRunAt })
    .from(agents)
    .where(and(eq(agents.status, 'running'), lte(agents.nextRunAt, now)))
    .orderBy(asc(agents.nextRunAt))
    .limit(limit)
    .for('update', { skipLocked: true });
  return rows.map((r) => ({ id: r.id, config: r.config, nextRunAt: r.nextRunAt! }));
}

/** One queued run per (agent, slot); a slot that already has its run is skipped. */
export async function insertScheduledRuns(tx: Db, slots: ReadonlyArray<{ agentId: string; scheduledFor: Date }>): Promise<number[]> {
  if (slots.length === 0) return [];
  const rows = await tx
    .insert(agentRuns)
    .values(slots.map((s) => ({ agentId: s.agentId, scheduledFor: s.scheduledFor, status: 'queued' as const })))
    .onConflictDoNothing({ target: [agentRuns.agentId, agentRuns.scheduledFor] })
    .returning({ id: agentRuns.id });
  return rows.map((r) => r.id);
}

/** Moves each claimed agent to its next slot in one statement (null: no slot left, e.g. no active day). */
export async function setNextRuns(tx: Db, updates: ReadonlyArray<{ id: string; nextRunAt: Date | null }>): Promise<void> {
  if (updates.length === 0) return;
  const values = sql.join(
    updates.map((u) => sql`(${u.id}::uuid, ${u.nextRunAt?.toISOString() ?? null}::timestamptz)`),
    sql`, `,
  );
  await tx.execute(sql`
    update ${agents} set next_run_at = v.next_run_at
    from (values ${values}) as v(id, next_run_at)
    where ${agents.id} = v.id and ${agents.status} = 'running'`);
}

export type StartedRun = { id: number; agentId: string; scheduledFor: Date | null; startTime: Date };

/** Takes a queued run for this worker. Only one caller can move it out of 'queued'. */
export async function startRun(db: Db, runId: number, now: Date, leaseUntil: Date): Promise<StartedRun | null> {
  const [row] = await db
    .update(agentRuns)
    .set({ status: 'running', startTime: now, leaseExpiresAt: leaseUntil })
    .where(and(eq(agentRuns.id, runId), eq(agentRuns.status, 'queued')))
    .returning({ id: agentRuns.id, agentId: agentRuns.agentId, scheduledFor: agentRuns.scheduledFor, startTime: agentRuns.startTime });
  return row ? { ...row, startTime: row.startTime! } : null;
}

export async function extendLeases(db: Db, runIds: readonly number[], leaseUntil: Date): Promise<void> {
  if (runIds.length === 0) return;
  await db
    .update(agentRuns)
    .set({ leaseExpiresAt: leaseUntil })
    .where(and(inArray(agentRuns.id, [...runIds]), eq(agentRuns.status, 'running')));
}

/** Records the outcome; false when the run is no longer ours (failed as interrupted meanwhile). */
export async function finishRun(
  db: Db,
  runId: number,
  outcome: { status: 'success' | 'failure'; result: TRunResult | null; error: string | null; endTime: Date },
): Promise<boolean> {
  const rows = await db
    .update(agentRuns)
    .set({ ...outcome, leaseExpiresAt: null })
    .where(and(eq(agentRuns.id, runId), eq(agentRuns.status, 'running')))
    .returning({ id: agentRuns.id });
  return rows.length > 0;
}

/** Runs whose worker stopped renewing the lease: that worker is dead. */
export async function failInterruptedRuns(db: Db, now: Date): Promise<Array<{ id: number; agentId: string }>> {
  return db
    .update(agentRuns)
    .set({ status: 'failure', error: 'interrupted', endTime: now, leaseExpiresAt: null })
    .where(and(eq(agentRuns.status, 'running'), lt(agentRuns.leaseExpiresAt, now)))
    .returning({ id: agentRuns.id, agentId: agentRuns.agentId });
}

export type RunAgent = { id: string; ownerId: string; name: string; templateId: string; config: TAgentConfig; ownerEmail: string };

export async function findRunAgent(db: Db, agentId: string): Promise<RunAgent | undefined> {
  const [row] = await db
    .select({ id: agents.id, ownerId: agents.ownerId, name: agents.name, templateId: agents.templateId, config: agents.config, ownerEmail: users.email })
    .from(agents)
    .innerJoin(users, eq(users.id, agents.ownerId))
    .where(eq(agents.id, agentId));
  return row;
}

/**
 * The prices the latest successful run before this one saw, keyed `source:symbol`, which
 * `performance` compares with. Extracted in SQL: the stored result also holds chart series,
 * which need not cross the wire for this.
 */
export async function previousPrices(db: Db, agentId: string, beforeRunId: number): Promise<Map<string, number> | null> {
  const result: unknown = await db.execute(sql`
    with previous as (
      select ${agentRuns.result} as result from ${agentRuns}
      where ${agentRuns.agentId} = ${agentId} and ${agentRuns.status} = 'success' and ${agentRuns.id} < ${beforeRunId}
      order by ${agentRuns.id} desc limit 1
    )
    select (m->>'source') || ':' || (m->>'symbol') as market, (m->>'price')::float8 as price, true as found
    from previous, jsonb_array_elements(previous.result->'markets') m
    where (m->>'ok')::boolean
    union all
    select null, null, true from previous
  `);
  const rows = rowsOf<{ market: string | null; price: number | null }>(result);
  if (rows.length === 0) return null;
  return new Map(rows.flatMap((r) => (r.market !== null && r.price !== null ? [[r.market, Number(r.price)] as const] : [])));
}

export async function recordAgentRun(db: Db, agentId: string, lastRunAt: Date, performance: string | null): Promise<void> {
  await db
    .update(agents)
    .set(performance === null ? { lastRunAt } : { lastRunAt, performance })
    .where(eq(agents.id, agentId));
}

/** Rows of a raw `execute()`: node-postgres answers a result with `rows`, PGlite's driver too. */
function rowsOf<T>(result: unknown): T[] {
  return (Array.isArray(result) ? result : (result as { rows: T[] }).rows) as T[];
}
