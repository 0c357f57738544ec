import type { FastifyBaseLogger as Logger } from 'fastify';
import type { Db } from '../../db/client.ts';
import type { RuntimeConfig } from '../../config.ts';
import { createDispatcher, type Dispatcher } from './dispatcher.ts';
import { DELIVERY_QUEUE, EMAIL_QUEUE, RUN_QUEUE, runIdsOf, type DeliveryJob, type EmailJob, type JobQueue, type RunJob } from './job-queue.ts';
import type { RunExecutor } from './run-executor.ts';

/** What the email worker calls: the notifications module's delivery, told which attempt this is. */
export type EmailDelivery = (notificationId: string, attempt: { number: number; last: boolean }) => Promise<void>;

export type RuntimeDeps = {
  db: Db;
  jobs: JobQueue;
  executor: Pick<RunExecutor, 'executeBatch'>;
  deliverEmail: EmailDelivery;
  /** The channels module's delivery, told which attempt this is (docs/decisions/0043). */
  deliverToChannel: EmailDelivery;
  config: RuntimeConfig;
  logger: Logger;
  now?: () => Date;
};

export type Runtime = { dispatcher: Dispatcher; stop(): Promise<void> };

const RUN_FETCH_LOOPS = 4;

/**
 * The workers of one process: a dispatch loop (claims due slots every DISPATCH_INTERVAL_MS and
 * recovers runs of dead workers), a pg-boss worker executing run jobs `concurrency` at a time,
 * and one delivering alert emails. Any number of processes may run this side by side.
 */
export async function startRuntime({ db, jobs, executor, deliverEmail, deliverToChannel, config, logger, now = () => new Date() }: RuntimeDeps): Promise<Runtime> {
  const dispatcher = createDispatcher({ db, jobs, logger, now, lookaheadMs: config.dispatchLookaheadMs });
  let stopping = false;
  let tick: Promise<void> = Promise.resolve();
  let timer: NodeJS.Timeout | undefined;

  const loop = () => {
    tick = (async () => {
      try {
        await dispatcher.recoverInterrupted();
        await dispatcher.dispatchDue();
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
  // fetch execute as one batch (docs/decisions/0052).
  const loops = Math.min(RUN_FETCH_LOOPS, config.concurrency);
  await jobs.boss.work<RunJob>(
    RUN_QUEUE,
    { batchSize: Math.ceil(config.concurrency / loops), localConcurrency: loops, burstWhenBatchFull: true, pollingIntervalSeconds: 0.5 },
    async (fetched) => {
      const runIds = fetched.flatMap((job) => runIdsOf(job.data));
      // Each run records its own failure; one agent's error never fails its neighbours' jobs.
      await executor.executeBatch(runIds).catch((err: unknown) => {
        logger.error({ err, runs: runIds }, 'agent runs crashed');
      });
    },
  );
  await jobs.boss.work<EmailJob, void, { batchSize: 1; pollingIntervalSeconds: 1; includeMetadata: true }>(EMAIL_QUEUE, { batchSize: 1, pollingIntervalSeconds: 1, includeMetadata: true }, async ([job]) => {
    await deliverEmail(job!.data.notificationId, { number: job!.retryCount + 1, last: job!.retryCount >= job!.retryLimit });
  });
  await jobs.boss.work<DeliveryJob, void, { batchSize: 1; pollingIntervalSeconds: 1; includeMetadata: true }>(DELIVERY_QUEUE, { batchSize: 1, pollingIntervalSeconds: 1, includeMetadata: true }, async ([job]) => {
    await deliverToChannel(job!.data.deliveryId, { number: job!.retryCount + 1, last: job!.retryCount >= job!.retryLimit });
  });
  loop();
  logger.info({ concurrency: config.concurrency }, 'agent workers started');

  return {
    dispatcher,
    async stop() {
      stopping = true;
      clearTimeout(timer);
      await tick;
      await jobs.boss.offWork(RUN_QUEUE, { wait: true });
      await jobs.boss.offWork(EMAIL_QUEUE, { wait: true });
      await jobs.boss.offWork(DELIVERY_QUEUE, { wait: true });
    },
  };
}
