import { and, asc, desc, eq, getTableColumns, inArray, isNotNull, isNull, sql } from 'drizzle-orm';
import type { Db } from '../../db/client.ts';
import { agentRunMarkets, agentRuns, agentSchedules, agents } from '../../db/schema.ts';

/**
 * What an agent's runs say of it (docs/decisions/0104): its latest finished run's end time, its
 * latest success's performance, and what its health is derived from (docs/decisions/0028).
 */
type RunFields = { lastRunAt: Date | null; performance: string | null; health: HealthRow };
/** An agent with its next slot (agent_schedules, docs/decisions/0103) and what its runs say of it. */
export type AgentRow = typeof agents.$inferSelect & Pick<typeof agentSchedules.$inferSelect, 'nextRunAt'> & RunFields;
export type AgentRunRow = typeof agentRuns.$inferSelect;
export type NewAgent = Pick<typeof agents.$inferInsert, 'ownerId' | 'templateId' | 'name' | 'status' | 'config'> & Pick<AgentRow, 'nextRunAt'>;
export type AgentPatch = Partial<Pick<AgentRow, 'name' | 'status' | 'config' | 'nextRunAt'>>;

/** A run as row_to_json gives it (parsed or not, per driver); null when there is none. */
type LatestFinished = { status: 'success' | 'failure'; error: string | null; end_time: string | null } | null;
type LatestSuccess = { end_time: string | null; performance: string | null } | null;
const parsedJson =
  <T,>() =>
  (value: unknown): T =>
    (typeof value === 'string' ? JSON.parse(value) : value) as T;
const dateOrNull = (text: string | null | undefined) => (text ? new Date(text) : null);

/**
 * The agent's columns, its schedule row's, and its latest finished and latest successful runs:
 * two index walks on agent_runs (agent_id, id desc), which its health (docs/decisions/0028) and
 * its last run and performance (0104) share. `agents.id` in the subqueries is the outer row's (in
 * a select's sql`` drizzle writes bare column names).
 */
const agentColumns = {
  agent: { ...getTableColumns(agents), nextRunAt: agentSchedules.nextRunAt },
  latest: sql`(select row_to_json(l) from (
    select r.status, r.error, r.end_time from ${agentRuns} r where r.agent_id = agents.id and r.status in ('success', 'failure') order by r.id desc limit 1) l)`.mapWith(parsedJson<LatestFinished>()),
  latestSuccess: sql`(select row_to_json(l) from (
    select r.end_time, r.performance from ${agentRuns} r where r.agent_id = agents.id and r.status = 'success' order by r.id desc limit 1) l)`.mapWith(parsedJson<LatestSuccess>()),
};
type AgentColumnsRow = { agent: Omit<AgentRow, keyof RunFields>; latest: LatestFinished; latestSuccess: LatestSuccess };

const toAgentRow = ({ agent, latest, latestSuccess }: AgentColumnsRow): AgentRow => ({
  ...agent,
  lastRunAt: dateOrNull(latest?.end_time),
  performance: latestSuccess?.performance ?? null,
  health: { latestStatus: latest?.status ?? null, latestError: latest?.error ?? null, lastSuccessAt: dateOrNull(latestSuccess?.end_time) },
});

const selectAgents = (db: Db) => db.select(agentColumns).from(agents).innerJoin(agentSchedules, eq(agentSchedules.agentId, agents.id));

// Every query is scoped by owner: another user's agent is indistinguishable from a missing one.
const owned = (id: string, ownerId: string) => and(eq(agents.id, id), eq(agents.ownerId, ownerId));

/**
 * The owner's agents, newest first, each with what its health is derived from: one statement,
 * where the list and its health were two (on PGlite each statement waits its turn for the one
 * connection, docs/decisions/0059).
 */
export async function listAgents(db: Db, ownerId: string): Promise<AgentRow[]> {
  const rows = await selectAgents(db).where(eq(agents.ownerId, ownerId)).orderBy(desc(agents.createdAt), desc(agents.id));
  return rows.map(toAgentRow);
}

export async function findAgent(db: Db, id: string, ownerId: string): Promise<AgentRow | undefined> {
  const [row] = await selectAgents(db).where(owned(id, ownerId));
  return row && toAgentRow(row);
}

/**
 * The agent, with its next slot when given. Its schedule row comes with the insert (a trigger of
 * migration 0035, so an agent inserted by any SQL has one); both in one transaction. A new agent
 * has no runs: no last run, no performance.
 */
export async function insertAgent(db: Db, { nextRunAt, ...values }: NewAgent): Promise<AgentRow> {
  return db.transaction(async (tx) => {
    const [row] = await tx.insert(agents).values(values).returning();
    const [schedule] = await tx.update(agentSchedules).set({ nextRunAt }).where(eq(agentSchedules.agentId, row!.id)).returning({ nextRunAt: agentSchedules.nextRunAt });
    return {
      ...row!,
      nextRunAt: schedule!.nextRunAt,
      lastRunAt: null,
      performance: null,
      health: { latestStatus: null, latestError: null, lastSuccessAt: null },
    };
  });
}

/**
 * Changes the agent and, when given, its next slot: the agent's row first, then its schedule row
 * (decision 0063's order; a dispatch holding the schedule row makes this wait for its commit, and
 * a slot it moved is then replaced by this one). Answers the agent as it is now.
 */
export async function updateAgent(db: Db, id: string, ownerId: string, { nextRunAt, ...patch }: AgentPatch): Promise<AgentRow | undefined> {
  return db.transaction(async (tx) => {
    const [row] = await tx
      .update(agents)
      .set({ ...patch, updatedAt: new Date() })
      .where(owned(id, ownerId))
      .returning({ id: agents.id });
    if (!row) return undefined;
    if (nextRunAt !== undefined) await tx.update(agentSchedules).set({ nextRunAt }).where(eq(agentSchedules.agentId, row.id));
    return findAgent(tx, id, ownerId);
  });
}

export async function deleteAgent(db: Db, id: string, ownerId: string): Promise<boolean> {
  const removed = await db.delete(agents).where(owned(id, ownerId)).returning({ id: agents.id });
  return removed.length > 0;
}

/**
 * A run's whole result: its `result`, with its markets read from agent_run_markets when they are
 * stored there, in the run's order (market_ids; docs/decisions/0102). Runs recorded before keep
 * their whole result in `result`.
 */
const wholeResult = sql`case when ${agentRuns.marketIds} is null then ${agentRuns.result} else ${agentRuns.result} || jsonb_build_object('markets', coalesce((
    select jsonb_agg(m.market order by k.n) from unnest(${agentRuns.marketIds}) with ordinality as k(id, n) join ${agentRunMarkets} m on m.id = k.id), '[]'::jsonb)) end`.mapWith(agentRuns.result);
const runColumns = { ...getTableColumns(agentRuns), result: wholeResult };

/** The agent's runs, newest first (served by the (agent_id, id desc) index); only those of `status` when given. */
export async function listRuns(db: Db, agentId: string, limit: number, status?: AgentRunRow['status']): Promise<AgentRunRow[]> {
  const where = status ? and(eq(agentRuns.agentId, agentId), eq(agentRuns.status, status)) : eq(agentRuns.agentId, agentId);
  return db.select(runColumns).from(agentRuns).where(where).orderBy(desc(agentRuns.id)).limit(limit);
}

/** One run of the agent (the caller has checked the agent is theirs). */
export async function findRun(db: Db, agentId: string, runId: number): Promise<AgentRunRow | undefined> {
  const [row] = await db.select(runColumns).from(agentRuns).where(and(eq(agentRuns.agentId, agentId), eq(agentRuns.id, runId)));
  return row;
}

/**
 * Drops scheduled runs no worker has started yet (queued ahead of their slot, or waiting in a
 * backlog): the agent was paused or rescheduled, so those slots are no longer its. Run-now
 * runs (no slot) stay. The runs are locked in id order first, as a worker taking a batch takes
 * them (docs/decisions/0063).
 */
export async function dropQueuedSlots(db: Db, agentId: string): Promise<void> {
  const queued = db
    .select({ id: agentRuns.id })
    .from(agentRuns)
    .where(and(eq(agentRuns.agentId, agentId), eq(agentRuns.status, 'queued'), isNotNull(agentRuns.scheduledFor)))
    .orderBy(asc(agentRuns.id))
    .for('update');
  await db.delete(agentRuns).where(inArray(agentRuns.id, queued));
}

/**
 * Queues a run-now unless the agent already has one queued or running: 'busy' then. The agent's
 * row is locked for the caller's transaction first, so of any number of parallel calls exactly
 * one finds none and inserts, and the others (which waited for the lock, and read after it)
 * find that one. undefined when the agent is gone. Scheduled runs do not count: they are the
 * schedule's, one per slot.
 */
export async function queueRunNow(tx: Db, agentId: string): Promise<AgentRunRow | 'busy' | undefined> {
  const [agent] = await tx.select({ id: agents.id }).from(agents).where(eq(agents.id, agentId)).for('update');
  if (!agent) return undefined;
  const [inProgress] = await tx
    .select({ id: agentRuns.id })
    .from(agentRuns)
    .where(and(eq(agentRuns.agentId, agentId), isNull(agentRuns.scheduledFor), inArray(agentRuns.status, ['queued', 'running'])))
    .limit(1);
  if (inProgress) return 'busy';
  const [row] = await tx.insert(agentRuns).values({ agentId, status: 'queued' }).returning();
  return row;
}

/** What an agent's health is derived from (docs/decisions/0028): its latest finished run, and its latest success's time. */
export type HealthRow = { latestStatus: 'success' | 'failure' | null; latestError: string | null; lastSuccessAt: Date | null };
