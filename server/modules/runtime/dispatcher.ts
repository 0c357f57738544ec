import type { FastifyBaseLogger as Logger } from 'fastify';
import type { Db } from '../../db/client.ts';
import { computeNextRunAt } from '../agents/schedule.ts';
import type { JobQueue } from './job-queue.ts';
import { claimDueAgents, failInterruptedRuns, insertScheduledRuns, setNextRuns } from './runtime.repo.ts';

/** Agents claimed per transaction: large enough for 10,000 a minute, small enough to keep locks short. */
export const DISPATCH_BATCH = 500;

export type DispatcherDeps = { db: Db; jobs: Pick<JobQueue, 'enqueueRuns'>; logger: Logger; now?: () => Date };

/**
 * Turns due slots into runs. In one transaction per batch: claim due running agents (FOR
 * UPDATE SKIP LOCKED, so dispatchers in several processes never take the same agent), insert
 * one queued run per (agent, slot) (unique, so a slot runs at most once), enqueue their jobs and
 * move each agent to its next slot after now. Slots missed while nothing ran are not replayed:
 * the agent runs once for the oldest missed slot and carries on from the present.
 */
export function createDispatcher({ db, jobs, logger, now = () => new Date() }: DispatcherDeps) {
  async function dispatchBatch(at: Date): Promise<{ claimed: number; queued: number }> {
    return db.transaction(async (tx) => {
      const due = await claimDueAgents(tx, at, DISPATCH_BATCH);
      if (due.length === 0) return { claimed: 0, queued: 0 };
      const runIds = await insertScheduledRuns(
        tx,
        due.map((a) => ({ agentId: a.id, scheduledFor: a.nextRunAt })),
      );
      await setNextRuns(
        tx,
        due.map((a) => ({ id: a.id, nextRunAt: computeNextRunAt(a.config.schedule, at) })),
      );
      await jobs.enqueueRuns(tx, runIds);
      return { claimed: due.length, queued: runIds.length };
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
    return failed.length;
  }

  return { dispatchDue, recoverInterrupted };
}

export type Dispatcher = ReturnType<typeof createDispatcher>;
