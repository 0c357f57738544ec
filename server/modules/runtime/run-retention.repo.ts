import { sql } from 'drizzle-orm';
import type { Db } from '../../db/client.ts';
import { agentRunMarkets, agentRuns } from '../../db/schema.ts';

export type RetentionBatch = {
  /** Runs looked at, in id order after `afterId`: fewer than the limit at the table's end. */
  scanned: number;
  /** The last of them: where the next batch starts (null: none was left). */
  lastId: number | null;
  /** A run created at or after the cut was among them: every later id is newer, the pass is over. */
  reachedCut: boolean;
  deleted: number;
  /** Stored market results (decision 0102) no run reads once these runs are gone, removed with them. */
  marketsDeleted: number;
};

/**
 * One batch of run retention (docs/decisions/0101), one statement in its own short transaction:
 * the `limit` runs after `afterId` in id order (the primary key: ids grow with time, so the old
 * runs are its first entries and no index on created_at is needed), of which those finished
 * before `cut` go, except each agent's `keepLast` latest runs and its latest success (the
 * console's "last success" and the next run's performance read it). Queued and running runs
 * never go. The runs are locked in id order (decision 0063) and one another statement holds is
 * skipped, not waited for: the next pass takes it. Each agent's bounds are read once per batch
 * through the (agent_id, id desc) index. Removing a run sets its notifications' run_id to null
 * (the foreign key's own action, through notifications_run_id_idx): a notification keeps its text.
 * The market results only the removed runs read (decision 0102: one row per batch's market) go
 * in the same statement, so they never pile up for the hourly scan to find: the runs that could
 * still read one have ids within its range (read by key), less those removed here (the
 * statement's snapshot still shows them).
 */
export async function removeOldRuns(db: Db, { afterId, cut, keepLast, limit }: { afterId: number; cut: Date; keepLast: number; limit: number }): Promise<RetentionBatch> {
  const cutAt = sql`${cut.toISOString()}::timestamptz`;
  const [row] = rowsOf<{ scanned: number | string; last_id: number | string | null; reached_cut: boolean; deleted: number | string; markets_deleted: number | string }>(
    await db.execute(sql`
      with scanned as (
        select id, agent_id, status, created_at from ${agentRuns}
        where id > ${afterId} order by id limit ${limit}
      ), old as (
        select id, agent_id from scanned where created_at < ${cutAt} and status in ('success', 'failure')
      ), bounds as materialized (
        -- Materialized: inlined into the join, PostgreSQL read both bounds once per run, not per agent (304 ms a batch against 25).
        select a.agent_id,
          (select p.id from ${agentRuns} p where p.agent_id = a.agent_id order by p.id desc offset ${keepLast} limit 1) as newest_removable,
          (select p.id from ${agentRuns} p where p.agent_id = a.agent_id and p.status = 'success' order by p.id desc limit 1) as latest_success
        from (select distinct agent_id from old) a
      ), removed as (
        delete from ${agentRuns} r
        using (
          select id from ${agentRuns}
          where id in (
            select old.id from old join bounds on bounds.agent_id = old.agent_id
            where old.id <= bounds.newest_removable and old.id is distinct from bounds.latest_success)
            and status in ('success', 'failure')
          order by id for update skip locked
        ) locked
        where r.id = locked.id
        returning r.id, r.market_ids
      ), freed as (
        delete from ${agentRunMarkets} m
        where m.id in (select distinct unnest(market_ids) from removed)
          and not exists (
            select 1 from ${agentRuns} r
            where r.id between m.first_run_id and m.last_run_id and m.id = any(r.market_ids) and r.id not in (select id from removed))
        returning m.id
      )
      select (select count(*) from scanned) as scanned, (select max(id) from scanned) as last_id,
        coalesce((select bool_or(created_at >= ${cutAt}) from scanned), false) as reached_cut,
        (select count(*) from removed) as deleted, (select count(*) from freed) as markets_deleted`),
  );
  return {
    scanned: Number(row!.scanned),
    lastId: row!.last_id === null ? null : Number(row!.last_id),
    reachedCut: row!.reached_cut,
    deleted: Number(row!.deleted),
    marketsDeleted: Number(row!.markets_deleted),
  };
}

/** Rows of a raw `execute()`: node-postgres answers a result with `rows`, PGlite's driver too. */
function rowsOf<T>(result: unknown): T[] {
  return (Array.isArray(result) ? result : (result as { rows: T[] }).rows) as T[];
}
