import type { FastifyBaseLogger as Logger } from 'fastify';
import type { Db } from '../../db/client.ts';
import { computeNextRunAt } from '../agents/schedule.ts';
import type { JobQueue } from './job-queue.ts';
import { candleKeyOf } from './run-plan.ts';
import { agentRuns } from '../../lib/telemetry/metrics.ts';
import { claimDueAgents, failInterruptedRuns, insertScheduledRuns, setNextRuns, type DueAgent } from './runtime.repo.ts';

/**
 * Agents claimed per transaction: large enough that a minute of a million agents is a thousand
 * short transactions, small enough to keep their locks short (docs/decisions/0104).
 */
const DISPATCH_BATCH = 1_000;
/**
 * Runs per job at most: a worker takes, executes and records them together (docs/decisions/0052).
 * Each batch costs the database a few statements whatever its size (taking the runs, recording
 * them, the lease, the job's fetch and completion), so at 200 those are a small part of a run's
 * cost (docs/decisions/0104: 50 made them a third of it); still small enough that a slot's runs
 * spread over every worker process and fetch loop (a slot of 10,000 agents is 50 jobs).
 */
export const RUN_BATCH_SIZE = 200;

export type DispatcherDeps = {
  db: Db;
  jobs: Pick<JobQueue, 'enqueueRunBatches'>;
  logger: Logger;
  now?: () => Date;
  /** Slots this close ahead are dispatched already, their jobs held until the slot. */
  lookaheadMs?: number;
  /** Runs per job at most (RUN_BATCH_SIZE; tests make batches small). */
  batchSize?: number;
};

/**
 * The runs of a dispatch in batches: runs of one slot whose agents read the same candles
 * (same template, timeframe and markets) together, RUN_BATCH_SIZE at most per batch.
 */
export function batchRuns(
  runs: ReadonlyArray<{ id: number; agentId: string; scheduledFor: Date }>,
  agentsById: ReadonlyMap<string, Pick<DueAgent, 'templateId' | 'config'>>,
  size: number,
): Array<{ runIds: number[]; scheduledFor: Date }> {
  const groups = new Map<string, { runIds: number[]; scheduledFor: Date }>();
  const batches: Array<{ runIds: number[]; scheduledFor: Date }> = [];
  for (const run of runs) {
    const agent = agentsById.get(run.agentId);
    const key = `${run.scheduledFor.getTime()}|${agent ? candleKeyOf(agent.templateId, agent.config) : ''}`;
    let group = groups.get(key);
    if (!group || group.runIds.length >= size) {
      group = { runIds: [], scheduledFor: run.scheduledFor };
      groups.set(key, group);
      batches.push(group);
    }
    group.runIds.push(run.id);
  }
  return batches;
}

/**
 * Turns due slots into runs. Slots up to `lookaheadMs` ahead are dispatched early, with their
 * jobs held until the slot (pg-boss startAfter): 10,000 agents due at the same second are
 * queued before it comes, so their runs start at the slot rather than after the inserts. In one
 * transaction per batch: claim due running agents (FOR UPDATE SKIP LOCKED, so dispatchers in
 * several processes never take the same agent), insert one queued run per (agent, slot)
 * (unique, so a slot runs at most once), enqueue one job per batch of runs sharing a slot and
 * their candles, and move each agent to its next slot after now. Slots missed while nothing ran
 * are not replayed: the agent runs once for the oldest missed slot and carries on from the present.
 */
export function createDispatcher({ db, jobs, logger, now = () => new Date(), lookaheadMs = 0, batchSize = RUN_BATCH_SIZE }: DispatcherDeps) {
  async function dispatchBatch(at: Date): Promise<{ claimed: number; queued: number }> {
    return db.transaction(async (tx) => {
      const due = await claimDueAgents(tx, new Date(at.getTime() + lookaheadMs), DISPATCH_BATCH);
      if (due.length === 0) return { claimed: 0, queued: 0 };
      const runs = await insertScheduledRuns(
        tx,
        due.map((a) => ({ agentId: a.id, scheduledFor: a.nextRunAt })),
      );
      // After the slot just queued, or after now when that slot was missed. Agents with the same
      // schedule due at the same slot (most of a busy minute) share one computation.
      const next = new Map<string, Date | null>();
      const nextRunOf = (a: DueAgent) => {
        const from = a.nextRunAt > at ? a.nextRunAt : at;
        const key = `${from.getTime()}|${JSON.stringify(a.config.schedule)}`;
        if (!next.has(key)) next.set(key, computeNextRunAt(a.config.schedule, from));
        return next.get(key)!;
      };
      await setNextRuns(
        tx,
        due.map((a) => ({ id: a.id, nextRunAt: nextRunOf(a) })),
      );
      const batches = batchRuns(runs, new Map(due.map((a) => [a.id, a])), batchSize);
      await jobs.enqueueRunBatches(
        tx,
        batches.map((b) => (b.scheduledFor > at ? { runIds: b.runIds, startAfter: b.scheduledFor } : { runIds: b.runIds })),
      );
      return { claimed: due.length, queued: runs.length };
    });
  }

  /** Dispatches every due slot as of `at` (default: now); returns how many runs it queued. */
  async function dispatchDue(at: Date = now()): Promise<number> {
    let queued = 0;
    for (;;) {
      const batch = await dispatchBatch(at);
      queued += batch.queued;
      if (batch.claimed < DISPATCH_BATCH) return queued;
    }
  }

  /** Fails runs whose worker died (lease passed) as 'interrupted'; the schedule goes on. */
  async function recoverInterrupted(at: Date = now()): Promise<number> {
    const failed = await failInterruptedRuns(db, at);
    if (failed.length > 0) logger.warn({ runs: failed.map((r) => r.id) }, 'runs interrupted by a stopped worker marked failed');
    if (failed.length > 0) agentRuns.inc({ status: 'interrupted' }, failed.length);
    return failed.length;
  }

  return { dispatchDue, recoverInterrupted };
}

export type Dispatcher = ReturnType<typeof createDispatcher>;
