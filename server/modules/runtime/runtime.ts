import type { FastifyBaseLogger as Logger } from 'fastify';
import type { Db } from '../../db/client.ts';
import type { RuntimeConfig } from '../../config.ts';
import { createDispatcher, type Dispatcher } from './dispatcher.ts';
import {
  BRIEF_QUEUE,
  DELIVERY_QUEUE,
  EMAIL_QUEUE,
  RELEASE_QUEUE,
  RUN_QUEUE,
  runIdsOf,
  type BriefJob,
  type DeliveryJob,
  type EmailJob,
  type JobQueue,
  type ReleaseJob,
  type RunJob,
} from './job-queue.ts';
import type { RunExecutor } from './run-executor.ts';

/** What the email worker calls: the notifications module's delivery, told which attempt this is. */
export type EmailDelivery = (notificationId: string, attempt: { number: number; last: boolean }) => Promise<void>;

export type RuntimeDeps = {
  db: Db;
  jobs: JobQueue;
  executor: Pick<RunExecutor, 'executeBatch'>;
  deliverEmail: EmailDelivery;
  /** The channels module's delivery (docs/decisions/0043), told which attempt a retry's job is for. */
  deliverToChannel: (deliveryId: string, attempt?: number) => Promise<void>;
  /** Alert briefs (docs/decisions/0044): the notifications module's brief job, the release of an
   * alert's held deliveries, and a brief's follow-up email. Without it their queues are not worked. */
  briefs?: {
    writeBrief(notificationId: string, facts: BriefJob['facts'], attempt: { number: number }): Promise<void>;
    releaseDeliveries(notificationId: string): Promise<void>;
    deliverBriefEmail: EmailDelivery;
  };
  config: RuntimeConfig;
  logger: Logger;
  now?: () => Date;
};

export type Runtime = {
  dispatcher: Dispatcher;
  /** Readiness (docs/decisions/0045): throws while stopping, or when no dispatch tick has
   * completed for a while (the database is gone, or a tick hangs). */
  check(): void;
  stop(): Promise<void>;
};

const RUN_FETCH_LOOPS = 4;
/**
 * How often an idle worker looks for jobs while NOTIFY wakes it (docs/decisions/0060). Each look
 * is a query, and on PGlite it holds the one connection: 18 looks a second while idle before.
 * Emails and deliveries can still miss a retry falling due (pg-boss's backoff), so that comes up
 * to RETRY_POLL_SECONDS late; the other queues' jobs are woken when created or when due, and their
 * look only catches a job whose waking process died.
 */
const RETRY_POLL_SECONDS = 2;
const BACKSTOP_POLL_SECONDS = 10;
/** A dispatch tick may take a while with a large backlog; this much silence is more than that. */
const MIN_STALE_DISPATCH_MS = 30_000;
const STALE_DISPATCH_TICKS = 5;

/**
 * The workers of one process: a dispatch loop (claims due slots every DISPATCH_INTERVAL_MS and
 * recovers runs of dead workers), a pg-boss worker executing run jobs `concurrency` at a time,
 * and one delivering alert emails. Any number of processes may run this side by side.
 */
export async function startRuntime({ db, jobs, executor, deliverEmail, deliverToChannel, briefs, config, logger, now = () => new Date() }: RuntimeDeps): Promise<Runtime> {
  const dispatcher = createDispatcher({ db, jobs, logger, now, lookaheadMs: config.dispatchLookaheadMs });
  let stopping = false;
  let tick: Promise<void> = Promise.resolve();
  let timer: NodeJS.Timeout | undefined;
  // Real time, not `now`: tests move `now` to reach schedules, and readiness is about this process.
  let lastTickAt = Date.now();
  const staleAfterMs = Math.max(MIN_STALE_DISPATCH_MS, STALE_DISPATCH_TICKS * config.dispatchIntervalMs);

  const loop = () => {
    tick = (async () => {
      try {
        await dispatcher.recoverInterrupted();
        await dispatcher.dispatchDue();
        lastTickAt = Date.now();
      } catch (err) {
        logger.error({ err }, 'dispatching due agents failed; retrying on the next tick');
      }
    })();
    void tick.then(() => {
      if (!stopping) timer = setTimeout(loop, config.dispatchIntervalMs);
    });
  };

  // Several fetch loops, each taking a few jobs (batches of runs, or run-now runs) and fetching
  // again at once while they come back full: one slow batch holds only its own loop, and a
  // backlog drains without waiting out the polling interval between fetches. The runs of one
  // fetch execute as one batch (docs/decisions/0052). A loop is woken by NOTIFY when a run is
  // queued, or here when a dispatched slot falls due (0060); on PostgreSQL another process's
  // dispatch is due unseen, so the loops there look every half second.
  const loops = Math.min(RUN_FETCH_LOOPS, config.concurrency);
  const runPoll = { pollingIntervalSeconds: 0.5, notifyPollingIntervalSeconds: jobs.singleProcess ? BACKSTOP_POLL_SECONDS : 0.5 };
  for (let i = 0; i < loops; i++) {
    const id = await jobs.boss.work<RunJob>(RUN_QUEUE, { batchSize: Math.ceil(config.concurrency / loops), burstWhenBatchFull: true, ...runPoll }, async (fetched) => {
      const runIds = fetched.flatMap((job) => runIdsOf(job.data));
      // Each run records its own failure; one agent's error never fails its neighbours' jobs.
      await executor.executeBatch(runIds).catch((err: unknown) => {
        logger.error({ err, runs: runIds }, 'agent runs crashed');
      });
    });
    jobs.wakeable(RUN_QUEUE, id);
  }
  await jobs.boss.work<EmailJob, void, { batchSize: 1; pollingIntervalSeconds: 1; notifyPollingIntervalSeconds: number; includeMetadata: true }>(
    EMAIL_QUEUE,
    { batchSize: 1, pollingIntervalSeconds: 1, notifyPollingIntervalSeconds: RETRY_POLL_SECONDS, includeMetadata: true },
    async ([job]) => {
      const deliver = job!.data.brief ? (briefs?.deliverBriefEmail ?? (async () => {})) : deliverEmail;
      await deliver(job!.data.notificationId, { number: job!.retryCount + 1, last: job!.retryCount >= job!.retryLimit });
    },
  );
  // A delivery's retry is a job of its own that starts later (docs/decisions/0062): this
  // process's queue wakes the worker then.
  const deliveries = await jobs.boss.work<DeliveryJob, void, { batchSize: 1; pollingIntervalSeconds: 1; notifyPollingIntervalSeconds: number }>(
    DELIVERY_QUEUE,
    { batchSize: 1, pollingIntervalSeconds: 1, notifyPollingIntervalSeconds: RETRY_POLL_SECONDS },
    async ([job]) => {
      await deliverToChannel(job!.data.deliveryId, job!.data.attempt);
    },
  );
  jobs.wakeable(DELIVERY_QUEUE, deliveries);
  if (briefs) await startBriefWorkers(jobs, briefs);
  loop();
  logger.info({ concurrency: config.concurrency }, 'agent workers started');

  return {
    dispatcher,
    check() {
      if (stopping) throw new Error('the workers are stopping');
      const silentMs = Date.now() - lastTickAt;
      if (silentMs > staleAfterMs) throw new Error(`no dispatch of due agents has completed for ${Math.round(silentMs / 1000)} s`);
    },
    async stop() {
      stopping = true;
      clearTimeout(timer);
      await tick;
      await jobs.boss.offWork(RUN_QUEUE, { wait: true });
      await jobs.boss.offWork(EMAIL_QUEUE, { wait: true });
      await jobs.boss.offWork(DELIVERY_QUEUE, { wait: true });
      if (briefs) {
        await jobs.boss.offWork(BRIEF_QUEUE, { wait: true });
        await jobs.boss.offWork(RELEASE_QUEUE, { wait: true });
      }
    },
  };
}

/** Briefs wait on a provider for up to their timeout: a few at once, so one slow assistant holds
 * one slot, not the queue. A release is quick database work. */
async function startBriefWorkers(jobs: JobQueue, briefs: NonNullable<RuntimeDeps['briefs']>): Promise<void> {
  await jobs.boss.work<BriefJob, void, { batchSize: 1; pollingIntervalSeconds: 0.5; notifyPollingIntervalSeconds: number; includeMetadata: true; localConcurrency: number }>(
    BRIEF_QUEUE,
    { batchSize: 1, pollingIntervalSeconds: 0.5, notifyPollingIntervalSeconds: BACKSTOP_POLL_SECONDS, includeMetadata: true, localConcurrency: 4 },
    async ([job]) => {
      await briefs.writeBrief(job!.data.notificationId, job!.data.facts, { number: job!.retryCount + 1 });
    },
  );
  // A release always starts later: this process's queue wakes its worker then (0060).
  const release = await jobs.boss.work<ReleaseJob, void, { batchSize: 1; pollingIntervalSeconds: 0.5; notifyPollingIntervalSeconds: number }>(
    RELEASE_QUEUE,
    { batchSize: 1, pollingIntervalSeconds: 0.5, notifyPollingIntervalSeconds: BACKSTOP_POLL_SECONDS },
    async ([job]) => {
      await briefs.releaseDeliveries(job!.data.notificationId);
    },
  );
  jobs.wakeable(RELEASE_QUEUE, release);
}
