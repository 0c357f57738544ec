import { eq, sql, type SQL } from 'drizzle-orm';
import type { TAgentConfig } from '../../../contracts/agents.ts';
import type { TMarketResult, TRunResult } from '../../../contracts/market.ts';
import type { TConditionOutcome } from '../../../contracts/condition-outcomes.ts';
import type { Db } from '../../db/client.ts';
import { agentRunMarkets, agentRuns, agentSchedules, agents, alertStates, runLeases, users } from '../../db/schema.ts';
import { executeNamed } from '../../db/named-statement.ts';
import { retryOnDeadlock } from '../../lib/db-errors.ts';
import { storedStatesSql, triggerStates, type ConditionTriggerState, type StoredConditionStates } from './condition-states.ts';

/** A due agent as the dispatch needs it: its schedule, and what says which candles it reads (batchRuns). */
export type DueAgent = { id: string; templateId: string; config: Pick<TAgentConfig, 'schedule' | 'parameters' | 'watchlist'>; nextRunAt: Date };

/**
 * Running agents whose slot has come, their schedule rows locked for this transaction (never the
 * wide agents row: docs/decisions/0103). SKIP LOCKED lets several dispatchers claim side by side:
 * each row goes to exactly one of them. The runs inserted next reference these rows (agent_runs'
 * foreign key), so the key share lock it takes is one this transaction holds already; an agent
 * being deleted (its schedule row deleted with it, locked) is skipped, not waited for.
 */
export async function claimDueAgents(tx: Db, now: Date, limit: number): Promise<DueAgent[]> {
  // Only the parts of the config the dispatch reads: turning the rest (its notifications) into
  // text for every agent of every slot was a tenth of the claim.
  const rows = rowsOf<{ id: string; template_id: string; config: DueAgent['config'] | string; next_run_at: Date | string }>(
    await tx.execute(sql`
      select s.agent_id as id, a.template_id,
        jsonb_build_object('schedule', a.config->'schedule', 'parameters', a.config->'parameters', 'watchlist', a.config->'watchlist') as config, s.next_run_at
      from ${agentSchedules} s join ${agents} a on a.id = s.agent_id
      where s.next_run_at is not null and s.next_run_at <= ${now.toISOString()}::timestamptz and a.status = 'running'
      order by s.next_run_at
      limit ${limit}
      for no key update of s skip locked`),
  );
  return rows.map((r) => ({
    id: r.id,
    templateId: r.template_id,
    config: typeof r.config === 'string' ? (JSON.parse(r.config) as DueAgent['config']) : r.config,
    nextRunAt: new Date(r.next_run_at),
  }));
}

/**
 * One queued run per (agent, slot); a slot that already has its run is skipped. The slots travel
 * as one JSON parameter: a statement of 1,000 rows with two thousand parameters costs more to
 * build and to plan than to run. The skip is a check, not ON CONFLICT (whose speculative insertion
 * logs each row twice, docs/decisions/0104): only the dispatch inserts scheduled runs, and it holds
 * the agents' schedule rows (claimDueAgents) meanwhile, so no other insert of those slots can come
 * between the check and the insert; the unique index on (agent, slot) still refuses a second run.
 */
export async function insertScheduledRuns(tx: Db, slots: ReadonlyArray<{ agentId: string; scheduledFor: Date }>): Promise<Array<{ id: number; agentId: string; scheduledFor: Date }>> {
  if (slots.length === 0) return [];
  const values = JSON.stringify(slots.map((s) => ({ agent_id: s.agentId, scheduled_for: s.scheduledFor.toISOString() })));
  const rows = rowsOf<{ id: number | string; agent_id: string; scheduled_for: Date | string }>(
    await tx.execute(sql`
      insert into ${agentRuns} (agent_id, scheduled_for, status)
      select v.agent_id, v.scheduled_for, 'queued' from jsonb_to_recordset(${values}::jsonb) as v(agent_id uuid, scheduled_for timestamptz)
      where not exists (select 1 from ${agentRuns} r where r.agent_id = v.agent_id and r.scheduled_for = v.scheduled_for)
      returning id, agent_id, scheduled_for`),
  );
  return rows.map((r) => ({ id: Number(r.id), agentId: r.agent_id, scheduledFor: new Date(r.scheduled_for) }));
}

/**
 * Moves each claimed agent to its next slot in one statement (null: no slot left, e.g. no active
 * day). Its schedule row is locked by the claim, so a pause waits for this transaction and then
 * clears it.
 */
export async function setNextRuns(tx: Db, updates: ReadonlyArray<{ id: string; nextRunAt: Date | null }>): Promise<void> {
  if (updates.length === 0) return;
  const values = JSON.stringify(updates.map((u) => ({ id: u.id, next_run_at: u.nextRunAt?.toISOString() ?? null })));
  await tx.execute(sql`
    update ${agentSchedules} set next_run_at = v.next_run_at
    from jsonb_to_recordset(${values}::jsonb) as v(id uuid, next_run_at timestamptz)
    where ${agentSchedules.agentId} = v.id`);
}

export type RunAgent = {
  id: string;
  ownerId: string;
  name: string;
  templateId: string;
  config: TAgentConfig;
  ownerEmail: string;
  /** The owner's zone from Settings (null: none chosen): the run's sentences write times in it (docs/decisions/0066). */
  ownerTimeZone: string | null;
};
export type StartedRun = {
  id: number;
  agentId: string;
  scheduledFor: Date | null;
  startTime: Date;
  /** The batch's lease (run_leases): renewed while the worker runs them, released once recorded. */
  leaseId: number;
  agent: RunAgent | null;
  /** Prices of the latest earlier successful run, keyed `source:symbol` (empty: none). */
  previousPrices: Map<string, number>;
  /** The agent's conditions firing now, keyed `market|thresholdType` (alert_states). */
  activeAlerts: Set<string>;
  /** Each of the agent's conditions' trigger state on a market (condition_states, condition_controls; docs/decisions/0073). */
  conditionState: (conditionId: string, market: string) => ConditionTriggerState;
};

type StartedRow = {
  id: number | string;
  agent_id: string;
  scheduled_for: Date | string | null;
  start_time: Date | string;
  lease_id: number | string;
  owner_id: string | null;
  name: string | null;
  template_id: string | null;
  config: TAgentConfig | null;
  email: string | null;
  time_zone: string | null;
  previous: Record<string, number> | null;
  alerts: string[] | null;
  condition_states: StoredConditionStates | string | null;
};

/**
 * Takes the queued runs among `runIds` for this worker and reads what each needs (its agent, the
 * previous successful run's prices, the conditions alerting now) in one round trip for the whole
 * batch: at 10,000 runs a minute each statement counts. The prices come from the previous run's
 * small `prices` column, never its large result (only a run recorded before that column existed
 * has them in its result alone). Only one caller can move a run out of
 * 'queued' (the row lock makes a concurrent caller re-check the status and skip it); runs that
 * are not queued any more are simply absent from the answer, which is in `runIds` order.
 *
 * The same statement creates the batch's one lease row (run_leases, until `leaseUntil`) over the
 * runs it took, so no run is running without a lease. The run's own row changes no indexed
 * column: a HOT update (docs/decisions/0102). The runs are locked as the update reaches them, not
 * first in id order (docs/decisions/0104: that second write of every row cost more than the rare
 * deadlock it prevents here); a deadlock (a batch holding two runs of an agent being paused or
 * deleted) is retried, and finds those runs gone. A named statement: planned once per connection.
 */
export async function startRuns(db: Db, runIds: readonly number[], now: Date, leaseUntil: Date): Promise<StartedRun[]> {
  if (runIds.length === 0) return [];
  const rows = await retryOnDeadlock(() =>
    executeNamed<StartedRow>(
      db,
      'runtime_start_runs',
      sql`
      with started as (
        update ${agentRuns} r set status = 'running', start_time = ${now.toISOString()}::timestamptz
        where r.id = any(${idArray(runIds)}::bigint[]) and r.status = 'queued'
        returning r.id, r.agent_id, r.scheduled_for, r.start_time
      ), lease as (
        insert into ${runLeases} (run_ids, expires_at)
        select array_agg(id order by id), ${leaseUntil.toISOString()}::timestamptz from started having count(*) > 0
        returning id
      )
      select started.*, (select id from lease) as lease_id, a.owner_id, a.name, a.template_id, a.config, u.email, u.time_zone,
        (select coalesce(p.prices, (
                  select coalesce(jsonb_object_agg((m->>'source') || ':' || (m->>'symbol'), (m->>'price')::float8) filter (where (m->>'ok')::boolean), '{}'::jsonb)
                  from jsonb_array_elements(coalesce(p.result->'markets', (select jsonb_agg(rm.market) from ${agentRunMarkets} rm where rm.id = any(p.market_ids)))) m))
         from ${agentRuns} p
         where p.agent_id = started.agent_id and p.status = 'success' and p.id < started.id
         order by p.id desc limit 1) as previous,
        (select array_agg(s.market || '|' || s.threshold_type) from ${alertStates} s where s.agent_id = started.agent_id) as alerts,
        -- Only agents with conditions have their state: the usual agent pays nothing for it.
        case when jsonb_typeof(a.config->'conditions') = 'array' and jsonb_array_length(a.config->'conditions') > 0
          then ${storedStatesSql(sql`started.agent_id`)} end as condition_states
      from started left join ${agents} a on a.id = started.agent_id left join ${users} u on u.id = a.owner_id`,
    ),
  );
  const order = new Map(runIds.map((id, i) => [id, i]));
  return rows.map(toStartedRun).sort((a, b) => order.get(a.id)! - order.get(b.id)!);
}

/** One run taken as startRuns takes a batch; null when it is not queued. */
export async function startRun(db: Db, runId: number, now: Date, leaseUntil: Date): Promise<StartedRun | null> {
  return (await startRuns(db, [runId], now, leaseUntil))[0] ?? null;
}

function toStartedRun(row: StartedRow): StartedRun {
  return {
    id: Number(row.id),
    agentId: row.agent_id,
    scheduledFor: row.scheduled_for === null ? null : new Date(row.scheduled_for),
    startTime: new Date(row.start_time),
    leaseId: Number(row.lease_id),
    agent:
      row.owner_id === null
        ? null
        : { id: row.agent_id, ownerId: row.owner_id, name: row.name!, templateId: row.template_id!, config: row.config!, ownerEmail: row.email!, ownerTimeZone: row.time_zone },
    previousPrices: new Map(Object.entries(row.previous ?? {}).map(([market, price]) => [market, Number(price)])),
    activeAlerts: new Set(row.alerts ?? []),
    conditionState: triggerStates(typeof row.condition_states === 'string' ? (JSON.parse(row.condition_states) as StoredConditionStates) : row.condition_states),
  };
}

/** Renews a batch's lease: one small row, whatever the batch's size. Gone (swept): nothing. */
export async function extendLease(db: Db, leaseId: number, leaseUntil: Date): Promise<void> {
  await db.update(runLeases).set({ expiresAt: leaseUntil }).where(eq(runLeases.id, leaseId));
}

/**
 * Removes a batch's lease once none of its runs is running (all recorded, or failed interrupted).
 * A run still running (its record refused) keeps it: it lapses and the sweep fails that run.
 */
export async function releaseLease(db: Db, leaseId: number): Promise<void> {
  await db.execute(sql`
    delete from ${runLeases} l where l.id = ${leaseId}
      and not exists (select 1 from ${agentRuns} r where r.id = any(l.run_ids) and r.status = 'running')`);
}

export type RunOutcome = {
  runId: number;
  status: 'success' | 'failure';
  result: TRunResult | null;
  /** A success's price of each market it read, keyed 'source:symbol' (null on a failure). */
  prices: Record<string, number> | null;
  error: string | null;
  endTime: Date;
  performance: string | null;
};

/**
 * Records the outcomes of a batch of runs in one statement, each run's row and nothing else: the
 * agent's last run and performance are read from its runs (docs/decisions/0104). Answers the runs
 * that were still ours; a run failed as interrupted meanwhile is left alone.
 *
 * The batch travels as one JSON document the database parses once, on PGlite and PostgreSQL
 * alike. A market result shared by several runs (the same object: runs on the same candles and
 * plan) is turned into JSON once, and stored once (agent_run_markets, decision 0102): each run
 * keeps its markets' ids and the rest of its result, so a batch of runs watching one market
 * writes one chart, not one per run.
 */
export async function finishRuns(db: Db, outcomes: readonly RunOutcome[]): Promise<Set<number>> {
  if (outcomes.length === 0) return new Set();
  // The batch's distinct market texts, each once; a run lists its markets by their place (1-based).
  const marketPlaces = new Map<string, number>();
  const placeOf = (text: string) => {
    let place = marketPlaces.get(text);
    if (place === undefined) {
      place = marketPlaces.size + 1;
      marketPlaces.set(text, place);
    }
    return place;
  };
  // In id order: the update reaches (and locks) the runs in the batch's order.
  const ordered = [...outcomes].sort((a, b) => a.runId - b.runId);
  const batch = `[${ordered
    .map((o) => {
      const { markets, ...rest } = o.result ?? { markets: null };
      const fields = {
        id: o.runId,
        status: o.status,
        prices: o.prices,
        error: o.error,
        end_time: o.endTime.toISOString(),
        performance: o.performance,
        markets: markets === null ? null : markets.map((m) => placeOf(marketText(m))),
      };
      return withField(JSON.stringify(fields), 'result', o.result === null ? 'null' : JSON.stringify(rest));
    })
    .join(',')}]`;
  const sharedMarkets = `[${[...marketPlaces.keys()].join(',')}]`;
  // The runs still running (`ours`), found by the ids' own list (one array parameter: the planner
  // sees how many ids it holds and reads each by the key). The update changes only those, joined
  // by key to the batch, which is parsed once (materialized: a join the planner costs as one row
  // could otherwise parse the whole document again per run), and checks under each row's lock that
  // it is still running (a sweep may have failed it meanwhile). It locks the runs as it reaches
  // them, in the batch's (id) order, not in a locking pass of its own first (docs/decisions/0104:
  // that pass wrote every row twice); a deadlock is retried. The market rows' ids are drawn first
  // (nextval, once per row of the materialized `shared`), so each run's list is made from the
  // places it sent, in its order; they are stored only when a run is recorded, with the range of
  // the runs that read them (deleteUnreadRunMarkets). A named statement: planned once per connection.
  const rows = await retryOnDeadlock(() =>
    executeNamed<{ id: number | string }>(
      db,
      'runtime_finish_runs',
      sql`
      with ours as materialized (
        select ${agentRuns.id} as id from ${agentRuns} where ${agentRuns.id} = any(${idArray(ordered.map((o) => o.runId))}::bigint[]) and ${agentRuns.status} = 'running'
      ), span as (
        select min(id) as first_id, max(id) as last_id from ours
      ), shared as materialized (
        select e.place, e.market, nextval(pg_get_serial_sequence('agent_run_markets', 'id')) as id
        from jsonb_array_elements(${sharedMarkets}::jsonb) with ordinality as e(market, place)
      ), stored as (
        insert into ${agentRunMarkets} (id, market, first_run_id, last_run_id) overriding system value
        select shared.id, shared.market, span.first_id, span.last_id from shared, span where span.first_id is not null
      ), outcome as materialized (
        select * from jsonb_to_recordset(${batch}::jsonb)
          as v(id bigint, status text, result jsonb, markets jsonb, prices jsonb, error text, end_time timestamptz, performance text)
      )
      update ${agentRuns} r
      set status = outcome.status, result = outcome.result, prices = outcome.prices, error = outcome.error, end_time = outcome.end_time,
        performance = outcome.performance,
        market_ids = case when outcome.markets is null then null else array(
          select s.id from jsonb_array_elements_text(outcome.markets) with ordinality as k(place, n)
          join shared s on s.place = k.place::bigint order by k.n) end
      from ours join outcome on outcome.id = ours.id
      where r.id = ours.id and r.status = 'running'
      returning r.id`,
    ),
  );
  return new Set(rows.map((r) => Number(r.id)));
}

/**
 * `select id from <table> where <condition> order by id for no key update`: the rows a statement
 * is about to change, locked one after another in id order. Every statement that changes many
 * agents (or runs) takes them so (docs/decisions/0063); in orders of their own, two of them could
 * each hold a row the other waits for. The exceptions are the two a worker runs for every batch,
 * its start and its record (docs/decisions/0104), which lock as they update and retry a deadlock. Used as `from (…) locked where t.id = locked.id`: every
 * row the statement changes has come through it, locked.
 */
function lockedInIdOrder(condition: SQL): SQL {
  return sql`select ${agentRuns.id} as id from ${agentRuns} where ${condition} order by ${agentRuns.id} for no key update`;
}

/** JSON of market results by object: runs sharing one share its text. */
const marketJson = new WeakMap<object, string>();
/** An agent's own market result made of a shared one and its conditions (withConditions). */
const sharedBase = new WeakMap<object, TMarketResult>();

/**
 * A market result with an agent's own condition outcomes (issue 30): the shared result's fields
 * and `conditions`. Its JSON is the shared result's text (made once, chart and all) with the
 * conditions added, so agents with conditions on one market do not stringify its chart each.
 */
export function withConditions<T extends TMarketResult & { ok: true }>(shared: T, conditions: TConditionOutcome[]): T {
  const own = { ...shared, conditions };
  sharedBase.set(own, shared);
  return own;
}

function marketText(market: TMarketResult): string {
  let text = marketJson.get(market);
  if (text === undefined) {
    const base = sharedBase.get(market);
    text = base && market.ok ? withField(marketText(base), 'conditions', JSON.stringify(market.conditions ?? [])) : JSON.stringify(market);
    // Not kept for an agent's own: its outcomes may still change (the cap's 'held') until recorded.
    if (!base) marketJson.set(market, text);
  }
  return text;
}

/** An object's JSON with one more field whose value is JSON text already. */
const withField = (objectJson: string, name: string, valueJson: string) =>
  `${objectJson.slice(0, -1)}${objectJson === '{}' ? '' : ','}${JSON.stringify(name)}:${valueJson}}`;

/** One run's outcome, recorded as finishRuns records a batch; false when it was no longer ours. */
export async function finishRun(db: Db, runId: number, outcome: Omit<RunOutcome, 'runId'>): Promise<boolean> {
  return (await finishRuns(db, [{ runId, ...outcome }])).has(runId);
}

/**
 * Each agent's latest finished runs that failed in a row, counted up to `cap`, in one statement
 * for a batch's agents (an exchange down fails every run of a slot at once).
 */
export async function failedRunsInARow(db: Db, agentIds: readonly string[], cap: number): Promise<Map<string, number>> {
  if (agentIds.length === 0) return new Map();
  const rows = rowsOf<{ agent_id: string; statuses: string[] }>(
    await db.execute(sql`
      select a.agent_id, array(
        select r.status from ${agentRuns} r
        where r.agent_id = a.agent_id::uuid and r.status in ('success', 'failure')
        order by r.id desc limit ${cap}) as statuses
      from jsonb_array_elements_text(${JSON.stringify([...new Set(agentIds)])}::jsonb) as a(agent_id)`),
  );
  return new Map(
    rows.map((r) => {
      const success = r.statuses.indexOf('success');
      return [r.agent_id, success === -1 ? r.statuses.length : success];
    }),
  );
}

/**
 * Runs whose worker stopped renewing their batch's lease: that worker is dead. Deletes the leases
 * that passed (a sweep running beside it skips those this one holds) and fails their runs still
 * running, locked in id order; a run its worker recorded meanwhile is left alone.
 */
export async function failInterruptedRuns(db: Db, now: Date): Promise<Array<{ id: number; agentId: string }>> {
  const rows = rowsOf<{ id: number | string; agent_id: string }>(
    await db.execute(sql`
      with expired as (
        delete from ${runLeases} l
        using (select id from ${runLeases} where expires_at < ${now.toISOString()}::timestamptz order by id for update skip locked) locked
        where l.id = locked.id
        returning l.run_ids
      )
      update ${agentRuns} r set status = 'failure', error = 'interrupted', end_time = ${now.toISOString()}::timestamptz
      from (${lockedInIdOrder(sql`${agentRuns.id} in (select unnest(run_ids) from expired) and ${agentRuns.status} = 'running'`)}) locked
      where r.id = locked.id
      returning r.id, r.agent_id`),
  );
  return rows.map((r) => ({ id: Number(r.id), agentId: r.agent_id }));
}

/** Ids as one PostgreSQL array literal ('{1,2,3}'): one parameter, however many. */
const idArray = (ids: readonly number[]) => `{${ids.join(',')}}`;

/**
 * Looks at up to `scan` stored market results after id `afterId`, in id order, and deletes those
 * no run reads any more (their runs went with their agent, or with run history's retention).
 * Answers how many it deleted and the last id it looked at (null: it reached the end). Each
 * row's runs have ids within its range, so they are read by key: agent_runs needs no index on
 * market_ids, and a pass costs at most `scan` such lookups however large the table.
 */
export async function deleteUnreadRunMarkets(db: Db, afterId: number, scan: number): Promise<{ deleted: number; lastId: number | null }> {
  const [row] = rowsOf<{ deleted: number | string; last_id: number | string | null; looked: number | string }>(
    await db.execute(sql`
      with looked as (
        select u.id, u.first_run_id, u.last_run_id from ${agentRunMarkets} u where u.id > ${afterId} order by u.id limit ${scan}
      ), removed as (
        delete from ${agentRunMarkets} m using looked
        where m.id = looked.id
          and not exists (select 1 from ${agentRuns} r where r.id between looked.first_run_id and looked.last_run_id and looked.id = any(r.market_ids))
        returning m.id
      )
      select (select count(*) from removed) as deleted, (select max(id) from looked) as last_id, (select count(*) from looked) as looked`),
  );
  const looked = Number(row?.looked ?? 0);
  return { deleted: Number(row?.deleted ?? 0), lastId: looked < scan || row?.last_id == null ? null : Number(row.last_id) };
}

/**
 * The hourly purge's step for stored market results: goes on from where the last pass stopped
 * (back to the start once it reached the end), so each pass does a bounded amount of work.
 */
export function createRunMarketsPurge(db: Db, scan = 10_000) {
  let afterId = 0;
  return async function purgeUnreadRunMarkets(): Promise<number> {
    const { deleted, lastId } = await deleteUnreadRunMarkets(db, afterId, scan);
    afterId = lastId ?? 0;
    return deleted;
  };
}

/** Rows of a raw `execute()`: node-postgres answers a result with `rows`, PGlite's driver too. */
function rowsOf<T>(result: unknown): T[] {
  return (Array.isArray(result) ? result : (result as { rows: T[] }).rows) as T[];
}

/** Runs queued and not started yet, in the whole database: the agent_runs_queued gauge (docs/decisions/0091). */
export async function countQueuedRuns(db: Db): Promise<number> {
  const [row] = await db.select({ count: sql<number>`count(*)::int` }).from(agentRuns).where(eq(agentRuns.status, 'queued'));
  return row?.count ?? 0;
}
