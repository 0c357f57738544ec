import type { FastifyBaseLogger as Logger } from 'fastify';
import { sql } from 'drizzle-orm';
import { PgBoss, fromDrizzle, fromPglite, type DrizzleTransactionLike, type QueueOptions } from 'pg-boss';
import type { Database, Db } from '../../db/client.ts';

/** pg-boss queues: one job per batch of agent runs (or per run-now run), one per alert email or delivery. */
export const RUN_QUEUE = 'agent-run';
export const EMAIL_QUEUE = 'alert-email';
export const DELIVERY_QUEUE = 'channel-delivery';

/** A run-now's job carries its run; a dispatched batch's carries the runs of one slot that share candles. */
export type RunJob = { runId: number } | { runIds: number[] };
export const runIdsOf = (job: RunJob): number[] => ('runIds' in job ? job.runIds : [job.runId]);
export type EmailJob = { notificationId: string };
export type DeliveryJob = { deliveryId: string };

/** How long pg-boss keeps a run's job active before giving up on its worker. Our own lease
 * (agent_runs.lease_expires_at) finds dead workers much sooner; this only bounds the job table. */
const RUN_JOB_EXPIRE_SECONDS = 15 * 60;

/**
 * pg-boss on our database: PGlite shares the process's one instance (pg-boss's PGlite backend),
 * PostgreSQL gets a small pool of its own. Run jobs are inserted inside the transaction that
 * creates their agent_runs rows, so a run and its job exist together or not at all.
 */
export type JobQueue = {
  boss: PgBoss;
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
  /** Queues a channel delivery (docs/decisions/0043); retried with backoff like an email. */
  enqueueDelivery(deliveryId: string): Promise<void>;
  stop(): Promise<void>;
};

export type JobQueueOptions = {
  logger: Logger;
  /** Retries of a failed alert email and the first delay (EMAIL_RETRIES, EMAIL_RETRY_DELAY_SECONDS). */
  email: { retries: number; retryDelaySeconds: number };
  /** The same for channel deliveries (CHANNEL_RETRIES, CHANNEL_RETRY_DELAY_SECONDS); the email's when absent. */
  channels?: { retries: number; retryDelaySeconds: number };
  /** Whether this process maintains the queues (expiry, retention): the worker processes do. */
  supervise: boolean;
};

export async function startJobQueue(database: Database, { logger, email, channels = email, supervise }: JobQueueOptions): Promise<JobQueue> {
  const boss =
    database.kind === 'pglite'
      ? new PgBoss({ db: fromPglite(database.pglite!), backend: 'pglite', supervise, schedule: false })
      : new PgBoss({ connectionString: database.url!, max: 4, supervise, schedule: false, application_name: 'pg-boss' });
  boss.on('error', (err: unknown) => logger.error({ err }, 'job queue error'));
  await boss.start();
  await ensureQueue(boss, RUN_QUEUE, { retryLimit: 0, expireInSeconds: RUN_JOB_EXPIRE_SECONDS, deleteAfterSeconds: 3600 });
  await ensureQueue(boss, EMAIL_QUEUE, { retryLimit: email.retries, retryDelay: email.retryDelaySeconds, retryBackoff: true, retryDelayMax: 600, expireInSeconds: 120 });
  await ensureQueue(boss, DELIVERY_QUEUE, { retryLimit: channels.retries, retryDelay: channels.retryDelaySeconds, retryBackoff: true, retryDelayMax: 600, expireInSeconds: 120 });

  return {
    boss,
    async enqueueRuns(tx, runs) {
      if (runs.length === 0) return;
      await boss.insert(
        RUN_QUEUE,
        runs.map((run) => ({ data: { runId: run.id } satisfies RunJob, ...(run.startAfter ? { startAfter: run.startAfter } : {}) })),
        // Our Db's execute() returns drizzle's result type, which pg-boss unwraps the same way.
        { db: fromDrizzle(tx as unknown as DrizzleTransactionLike, sql) },
      );
    },
    async enqueueRunBatches(tx, batches) {
      if (batches.length === 0) return;
      await boss.insert(
        RUN_QUEUE,
        batches.map((batch) => ({ data: { runIds: batch.runIds } satisfies RunJob, ...(batch.startAfter ? { startAfter: batch.startAfter } : {}) })),
        { db: fromDrizzle(tx as unknown as DrizzleTransactionLike, sql) },
      );
    },
    async enqueueEmail(notificationId) {
      await boss.send(EMAIL_QUEUE, { notificationId } satisfies EmailJob);
    },
    async enqueueDelivery(deliveryId) {
      await boss.send(DELIVERY_QUEUE, { deliveryId } satisfies DeliveryJob);
    },
    stop: () => boss.stop({ graceful: true, timeout: 10_000 }),
  };
}

/** Creates the queue, or applies changed settings to one an earlier start created. */
async function ensureQueue(boss: PgBoss, name: string, options: QueueOptions): Promise<void> {
  if (await boss.getQueue(name)) await boss.updateQueue(name, options);
  else await boss.createQueue(name, options);
}
