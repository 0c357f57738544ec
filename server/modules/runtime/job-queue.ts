import type { FastifyBaseLogger as Logger } from 'fastify';
import { sql } from 'drizzle-orm';
import { PgBoss, fromDrizzle, fromPglite, type DrizzleTransactionLike, type Queue } from 'pg-boss';
import type { Database, Db } from '../../db/client.ts';
import type { BriefFacts } from '../notifications/alert-brief.ts';

/** pg-boss queues: one job per batch of agent runs (or per run-now run), one per alert email, one
 * per channel delivery, and per explained alert one brief and one release of its held deliveries
 * (docs/decisions/0044). */
export const RUN_QUEUE = 'agent-run';
export const EMAIL_QUEUE = 'alert-email';
export const DELIVERY_QUEUE = 'channel-delivery';
export const BRIEF_QUEUE = 'alert-brief';
export const RELEASE_QUEUE = 'alert-brief-release';
/** One job per scheduled article, keyed by it, starting at its publish time (docs/decisions/0098;
 * server/modules/articles/article-schedule.ts). */
export const PUBLISH_QUEUE = 'article-publish';

/** A run-now's job carries its run; a dispatched batch's carries the runs of one slot that share candles. */
export type RunJob = { runId: number } | { runIds: number[] };
export const runIdsOf = (job: RunJob): number[] => ('runIds' in job ? job.runIds : [job.runId]);
/** `brief`: the follow-up email of a brief written after the alert's email went. */
export type EmailJob = { notificationId: string; brief?: true };
/** `attempt`: the delivery's attempt this job is for (absent on jobs queued before it was carried). */
export type DeliveryJob = { deliveryId: string; attempt?: number };
export type BriefJob = { notificationId: string; facts: BriefFacts };
export type ReleaseJob = { notificationId: string };

/** How long pg-boss keeps a run's job active before giving up on its worker. Our own lease
 * (agent_runs.lease_expires_at) finds dead workers much sooner; this only bounds the job table. */
const RUN_JOB_EXPIRE_SECONDS = 15 * 60;
/** pg-boss compares a job's start with the database's clock: a wake this much later finds it due. */
const WAKE_MARGIN_MS = 20;
/** The longest delay setTimeout keeps (2^31 - 1 ms). */
const MAX_TIMER_MS = 2 ** 31 - 1 - WAKE_MARGIN_MS;

/**
 * pg-boss on our database: PGlite shares the process's one instance (pg-boss's PGlite backend),
 * PostgreSQL gets a small pool of its own. Run jobs are inserted inside the transaction that
 * creates their agent_runs rows, so a run and its job exist together or not at all.
 */
export type JobQueue = {
  boss: PgBoss;
  /** PGlite: one process, so every job is created where its workers run. */
  singleProcess: boolean;
  /**
   * Registers a worker of this process (an id `boss.work` returned) to be woken when a job of its
   * queue created here with a later start falls due (docs/decisions/0060). A job due at once
   * wakes the queue's workers in every process through pg-boss's NOTIFY.
   */
  wakeable(queue: string, workerId: string): void;
  /** Wakes this process's workers of `queue` (registered with wakeable) when a job created here
   * to start at `at` falls due. */
  wakeAt(queue: string, at: Date): void;
  /**
   * Queues run jobs in the caller's transaction (`tx`), or on their own when tx is the plain db.
   * A run with `startAfter` (its slot, dispatched ahead) is not handed to a worker before then.
   */
  enqueueRuns(tx: Db, runs: ReadonlyArray<{ id: number; startAfter?: Date }>): Promise<void>;
  /**
   * Queues one job per batch of runs (the dispatcher's: runs of one slot sharing their candles),
   * in the caller's transaction; a worker takes, executes and records a batch's runs together.
   */
  enqueueRunBatches(tx: Db, batches: ReadonlyArray<{ runIds: number[]; startAfter?: Date }>): Promise<void>;
  /** Queues an alert email; pg-boss retries it with backoff `retries` times. */
  enqueueEmail(notificationId: string): Promise<void>;
  /** Queues a channel delivery's attempt (docs/decisions/0043): the first at once, a retry not
   * before its `at` (docs/decisions/0062: the receiver's asked wait or the service's schedule). */
  enqueueDelivery(deliveryId: string, retry?: { attempt: number; at: Date }): Promise<void>;
  /** Readiness (docs/decisions/0045): resolves while the queue is started and its run queue
   * answers from the database; rejects with the cause otherwise. */
  check(): Promise<void>;
  /** Queues an alert's brief; a second attempt (its worker died) records it interrupted. */
  enqueueBrief(notificationId: string, facts: BriefFacts): Promise<void>;
  /** Queues the release of an alert's held deliveries, not handed to a worker before `at`. */
  enqueueRelease(notificationId: string, at: Date): Promise<void>;
  /** Queues a brief's follow-up email on the email queue (same retries). */
  enqueueBriefEmail(notificationId: string): Promise<void>;
  stop(): Promise<void>;
};

export type JobQueueOptions = {
  logger: Logger;
  /** Retries of a failed alert email and the first delay (EMAIL_RETRIES, EMAIL_RETRY_DELAY_SECONDS). */
  email: { retries: number; retryDelaySeconds: number };
  /** The same for channel deliveries (CHANNEL_RETRIES, CHANNEL_RETRY_DELAY_SECONDS); the email's when absent.
   * The channels service schedules a receiver's failures itself; these retry a job whose worker
   * failed (the database away). */
  channels?: { retries: number; retryDelaySeconds: number };
  /** The brief's own timeout (ALERT_BRIEF_TIMEOUT_SECONDS): its job expires a while after. */
  briefs?: { timeoutSeconds: number };
  /** Whether this process maintains the queues (expiry, retention): the worker processes do. */
  supervise: boolean;
};

export async function startJobQueue(database: Database, { logger, email, channels = email, briefs = { timeoutSeconds: 20 }, supervise }: JobQueueOptions): Promise<JobQueue> {
  // LISTEN/NOTIFY wakes idle workers when a job is created (docs/decisions/0060), so they need
  // only a slow poll: on PGlite every poll holds its one connection.
  const boss =
    database.kind === 'pglite'
      ? new PgBoss({ db: fromPglite(database.pglite!), backend: 'pglite', supervise, schedule: false, useListenNotify: true })
      : new PgBoss({ connectionString: database.url!, max: 4, supervise, schedule: false, application_name: 'pg-boss', useListenNotify: true });
  boss.on('error', (err: unknown) => logger.error({ err }, 'job queue error'));
  await boss.start();
  await ensureQueue(boss, RUN_QUEUE, { notify: true, retryLimit: 0, expireInSeconds: RUN_JOB_EXPIRE_SECONDS, deleteAfterSeconds: 3600 });
  await ensureQueue(boss, EMAIL_QUEUE, { notify: true, retryLimit: email.retries, retryDelay: email.retryDelaySeconds, retryBackoff: true, retryDelayMax: 600, expireInSeconds: 120 });
  await ensureQueue(boss, DELIVERY_QUEUE, { notify: true, retryLimit: channels.retries, retryDelay: channels.retryDelaySeconds, retryBackoff: true, retryDelayMax: 600, expireInSeconds: 120 });
  let stopped = false;
  // One call per brief: a retry only runs after its worker died (expired) or crashed, and then
  // records the brief as interrupted instead of calling (and paying) again.
  await ensureQueue(boss, BRIEF_QUEUE, { notify: true, retryLimit: 1, retryDelay: 1, expireInSeconds: briefs.timeoutSeconds + 60, deleteAfterSeconds: 3600 });
  // Database work only; retried while the database is away.
  await ensureQueue(boss, RELEASE_QUEUE, { notify: true, retryLimit: 5, retryDelay: 2, retryBackoff: true, retryDelayMax: 60, expireInSeconds: 60, deleteAfterSeconds: 3600 });
  // Database work only; retried while the database is away (and the sweep catches what is left).
  await ensureQueue(boss, PUBLISH_QUEUE, { notify: true, retryLimit: 5, retryDelay: 5, retryBackoff: true, retryDelayMax: 60, expireInSeconds: 60, deleteAfterSeconds: 86_400 });

  const workers = new Map<string, string[]>();
  const wakes = new Map<string, NodeJS.Timeout>();
  /** A job created here to start at `at`: its queue's workers here fetch then, not at their next poll. */
  const wakeAt = (queue: string, at: Date | undefined) => {
    const delay = at === undefined ? 0 : at.getTime() - Date.now();
    if (delay <= 0 || stopped) return; // due at once: the insert's NOTIFY wakes them
    // Beyond a timer's reach (about 24.8 days; Node would fire it at once): the workers' own look finds it.
    if (delay > MAX_TIMER_MS) return;
    const key = `${queue}@${at!.getTime()}`; // a slot's batches share their start: one wake
    if (wakes.has(key)) return;
    const timer = setTimeout(() => {
      wakes.delete(key);
      for (const id of workers.get(queue) ?? []) boss.notifyWorker(id);
    }, delay + WAKE_MARGIN_MS);
    timer.unref();
    wakes.set(key, timer);
  };

  return {
    boss,
    singleProcess: database.kind === 'pglite',
    wakeable(queue, workerId) {
      workers.set(queue, [...(workers.get(queue) ?? []), workerId]);
    },
    wakeAt,
    async enqueueRuns(tx, runs) {
      if (runs.length === 0) return;
      for (const run of runs) wakeAt(RUN_QUEUE, run.startAfter);
      await boss.insert(
        RUN_QUEUE,
        runs.map((run) => ({ data: { runId: run.id } satisfies RunJob, ...(run.startAfter ? { startAfter: run.startAfter } : {}) })),
        // Our Db's execute() returns drizzle's result type, which pg-boss unwraps the same way.
        { db: fromDrizzle(tx as unknown as DrizzleTransactionLike, sql) },
      );
    },
    async enqueueRunBatches(tx, batches) {
      if (batches.length === 0) return;
      for (const batch of batches) wakeAt(RUN_QUEUE, batch.startAfter);
      await boss.insert(
        RUN_QUEUE,
        batches.map((batch) => ({ data: { runIds: batch.runIds } satisfies RunJob, ...(batch.startAfter ? { startAfter: batch.startAfter } : {}) })),
        { db: fromDrizzle(tx as unknown as DrizzleTransactionLike, sql) },
      );
    },
    async enqueueEmail(notificationId) {
      await boss.send(EMAIL_QUEUE, { notificationId } satisfies EmailJob);
    },
    async enqueueDelivery(deliveryId, retry) {
      // The attempt it is for: a job run again after its attempt was recorded sends nothing twice.
      if (!retry) {
        await boss.send(DELIVERY_QUEUE, { deliveryId, attempt: 1 } satisfies DeliveryJob);
        return;
      }
      await boss.send(DELIVERY_QUEUE, { deliveryId, attempt: retry.attempt } satisfies DeliveryJob, { startAfter: retry.at });
      wakeAt(DELIVERY_QUEUE, retry.at);
    },
    async check() {
      if (stopped) throw new Error('the job queue is stopped');
      if (!(await boss.getQueue(RUN_QUEUE))) throw new Error(`the job queue has no queue ${RUN_QUEUE}`);
    },
    async enqueueBrief(notificationId, facts) {
      await boss.send(BRIEF_QUEUE, { notificationId, facts } satisfies BriefJob);
    },
    async enqueueRelease(notificationId, at) {
      await boss.send(RELEASE_QUEUE, { notificationId } satisfies ReleaseJob, { startAfter: at });
      wakeAt(RELEASE_QUEUE, at);
    },
    async enqueueBriefEmail(notificationId) {
      await boss.send(EMAIL_QUEUE, { notificationId, brief: true } satisfies EmailJob);
    },
    stop: () => {
      stopped = true;
      for (const timer of wakes.values()) clearTimeout(timer);
      wakes.clear();
      return boss.stop({ graceful: true, timeout: 10_000 });
    },
  };
}

/** Creates the queue, or applies changed settings to one an earlier start created. */
async function ensureQueue(boss: PgBoss, name: string, options: Omit<Queue, 'name'>): Promise<void> {
  if (await boss.getQueue(name)) await boss.updateQueue(name, options);
  else await boss.createQueue(name, options);
}
