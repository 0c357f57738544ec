import type { FastifyBaseLogger as Logger } from 'fastify';
import type { Config } from '../../config.ts';
import type { Database } from '../../db/client.ts';
import { createMailer } from '../../integrations/email/mailer.ts';
import { createWhaleAlertSource } from '../../integrations/onchain/whale-alert.ts';
import { createMarketData, type MarketData } from '../market/market-data.ts';
import { channelsServiceFromConfig, type ChannelsService } from '../channels/channels.service.ts';
import { createNotificationsService, deliveryBrief, type NotificationsService } from '../notifications/notifications.service.ts';
import { createAlertBriefWriter } from '../chat/alert-brief-writer.ts';
import type { EventPublisher } from '../../lib/live-events.ts';
import { createNotifyPublisher } from '../events/event-publisher.ts';
import type { JobQueue } from './job-queue.ts';
import { createRunExecutor } from './run-executor.ts';
import { startRuntime, type Runtime } from './runtime.ts';
import { countQueuedRuns } from './runtime.repo.ts';
import { watchQueuedRuns } from '../../lib/telemetry/metrics.ts';

export type Workers = {
  runtime: Runtime;
  /** Readiness of this process's workers (docs/decisions/0045): the loops run and the job queue answers. */
  check(): Promise<void>;
  stop(): Promise<void>;
};

/**
 * Everything a worker process runs, assembled from config: market data (live or simulated),
 * the on-chain source when a key is set, alerts with email, and the runtime loops. Used by the
 * web process when RUN_WORKERS is on, by `npm run worker`, and by the runtime's tests.
 */
export async function startWorkers({
  config,
  database,
  jobs,
  logger,
  now = () => new Date(),
  notifications: shared,
  channels: sharedChannels,
  marketData: sharedMarketData,
  events: sharedEvents,
}: {
  config: Config;
  database: Database;
  jobs: JobQueue;
  logger: Logger;
  now?: () => Date;
  /** The web app's alerts service, when this process has one (one mailer per process). */
  notifications?: NotificationsService;
  /** The web app's channels service, when this process has one. */
  channels?: ChannelsService;
  /** The process's market data, when the web app has one (one rate gate per provider); closed by its maker. */
  marketData?: MarketData;
  /** The web app's live events, when this process has one; else runs are published on the database's channel. */
  events?: EventPublisher;
}): Promise<Workers> {
  const { db } = database;
  const ownPublisher = sharedEvents ? null : createNotifyPublisher(database, logger);
  const events = sharedEvents ?? ownPublisher!;
  const marketData = sharedMarketData ?? createMarketData(config.market, { logger, now, db });
  const channels = sharedChannels ?? channelsServiceFromConfig(config, { db, enqueueDelivery: jobs.enqueueDelivery, logger, now, briefOf: deliveryBrief });
  const notifications =
    shared ??
    createNotificationsService({
      db,
      mailer: createMailer(config.email, logger),
      enqueueEmail: jobs.enqueueEmail,
      logger,
      now,
      publicUrl: config.publicUrl,
      channels,
      events,
      briefs: {
        writer: createAlertBriefWriter({ db, config: config.chat, briefs: config.alertBriefs, logger, now }),
        waitSeconds: config.alertBriefs.waitSeconds,
        enqueueBrief: jobs.enqueueBrief,
        enqueueRelease: jobs.enqueueRelease,
        enqueueBriefEmail: jobs.enqueueBriefEmail,
      },
    });
  const executor = createRunExecutor({
    db,
    marketData,
    onChain: createWhaleAlertSource(config.market),
    alerts: notifications,
    logger,
    now,
    leaseSeconds: config.runtime.leaseSeconds,
    events,
  });
  const runtime = await startRuntime({
    db,
    jobs,
    executor,
    deliverEmail: notifications.deliverEmail,
    deliverToChannel: channels.deliver,
    briefs: { writeBrief: notifications.writeBrief, releaseDeliveries: notifications.releaseDeliveries, deliverBriefEmail: notifications.deliverBriefEmail },
    config: config.runtime,
    logger,
    now,
  });
  // Read at each scrape; unknown (NaN) while the database does not answer, so one failing read
  // does not fail the whole scrape.
  const unwatchQueue = watchQueuedRuns(() =>
    countQueuedRuns(db).catch((err: unknown) => {
      logger.warn({ err }, 'metrics: could not count the queued runs');
      return Number.NaN;
    }),
  );
  return {
    runtime,
    async check() {
      runtime.check();
      await jobs.check();
    },
    async stop() {
      unwatchQueue();
      await runtime.stop();
      await ownPublisher?.flush();
      if (!sharedMarketData) await marketData.close();
    },
  };
}
