import type { FastifyBaseLogger as Logger } from 'fastify';
import { sql } from 'drizzle-orm';
import { fromDrizzle, type DrizzleTransactionLike } from 'pg-boss';
import type { Db } from '../../db/client.ts';
import { PUBLISH_QUEUE, type JobQueue } from '../runtime/job-queue.ts';

/**
 * Scheduled publishing (issue 34 item 2, docs/decisions/0098): one pg-boss job per scheduled
 * article, keyed by the article, that starts at its publish time; the save that schedules,
 * moves or drops the time writes the job in its own transaction, so the article and its job
 * change together. Whoever runs the job (any process) publishes through a conditional UPDATE, so
 * a job run twice, or a job and the sweep, publish once. The sweep, at start and every minute,
 * publishes whatever is due that a lost job missed. The queue is made with the others (job-queue.ts).
 */
export type PublishJob = { articleId: string };

/** How often the sweep looks for scheduled articles a job missed. */
export const SWEEP_INTERVAL_MS = 60_000;
/**
 * How often an idle worker looks for due jobs. This process's own jobs wake it when due (the job
 * queue's wakeAt); on PostgreSQL another process's job is found by this look, at most this late.
 * On PGlite every job is this process's, and each look holds the one connection: a slow backstop.
 */
const POLL_SECONDS = 2;
const SINGLE_PROCESS_POLL_SECONDS = 10;

export type ArticleSchedule = {
  /** In the save's transaction: the article's job starts at `at` (its waiting job moved, or a new one). */
  schedule(tx: Db, articleId: string, at: Date): Promise<void>;
  /** In the save's transaction: the article's waiting job, if any, is cancelled. */
  cancel(tx: Db, articleId: string): Promise<void>;
  /** Starts this process's worker and sweep; `publish` publishes what is due (one article, or all). */
  start(publish: (articleId?: string) => Promise<void>): Promise<void>;
  stop(): Promise<void>;
};

export function createArticleSchedule({ jobs, logger }: { jobs: JobQueue; logger: Logger }): ArticleSchedule {
  const { boss } = jobs;
  // Our Db's execute() returns drizzle's result type, which pg-boss unwraps the same way.
  const inTx = (tx: Db) => ({ db: fromDrizzle(tx as unknown as DrizzleTransactionLike, sql) });
  let sweep: NodeJS.Timeout | undefined;
  let sweeping: Promise<void> = Promise.resolve();
  let started = false;

  return {
    async schedule(tx, articleId, at) {
      // One waiting job per article (the key): moved to the new time, or inserted.
      await boss.upsert(PUBLISH_QUEUE, { articleId } satisfies PublishJob, { singletonKey: articleId, startAfter: at, ...inTx(tx) });
      jobs.wakeAt(PUBLISH_QUEUE, at);
    },
    async cancel(tx, articleId) {
      // update() with nothing to change names the article's waiting jobs.
      const { jobs: waiting } = await boss.update(PUBLISH_QUEUE, undefined, { singletonKey: articleId, match: 'all', ...inTx(tx) });
      if (waiting.length > 0) await boss.cancel(PUBLISH_QUEUE, waiting, inTx(tx));
    },
    async start(publish) {
      const poll = jobs.singleProcess ? SINGLE_PROCESS_POLL_SECONDS : POLL_SECONDS;
      const worker = await boss.work<PublishJob, void, { batchSize: 1; pollingIntervalSeconds: number; notifyPollingIntervalSeconds: number }>(
        PUBLISH_QUEUE,
        { batchSize: 1, pollingIntervalSeconds: poll, notifyPollingIntervalSeconds: poll },
        async ([job]) => publish(job!.data.articleId),
      );
      jobs.wakeable(PUBLISH_QUEUE, worker);
      started = true;
      const runSweep = () => {
        sweeping = publish().catch((err: unknown) => logger.error({ err }, 'publishing the scheduled articles that are due failed; trying again in a minute'));
      };
      // The first sweep is awaited: a process answers only once what fell due while none ran is public.
      runSweep();
      await sweeping;
      sweep = setInterval(runSweep, SWEEP_INTERVAL_MS);
      sweep.unref();
    },
    async stop() {
      clearInterval(sweep);
      await sweeping;
      if (started) await boss.offWork(PUBLISH_QUEUE, { wait: true });
    },
  };
}
