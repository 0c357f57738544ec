import pino from 'pino';
import { buildApp } from './app.ts';
import { loadConfigOrExit } from './config.ts';
import { openDatabase } from './db/client.ts';
import { DataDirInUseError } from './db/data-dir-lock.ts';
import { startJobQueue } from './modules/runtime/job-queue.ts';
import { startWorkers, type Workers } from './modules/runtime/workers.ts';
import { createMarketData } from './modules/market/market-data.ts';
import { loggerOptions } from './lib/logger.ts';
import { METRICS_PATH, startMetricsServer, type MetricsServer } from './lib/telemetry/metrics-endpoint.ts';
import { startTracing } from './lib/telemetry/start-tracing.ts';
import { PRIVATE_UMASK } from './lib/private-files.ts';
import { capYoungGeneration, collectGarbageAndShrink, setV8Flags, v8FlagsFor } from './lib/v8-memory.ts';

const SHUTDOWN_DEADLINE_MS = 10_000;

async function main(): Promise<void> {
  // Every file this process creates is private: the session secret, and the embedded database's
  // files and directories, including those PGlite adds while it runs (WAL segments, tables).
  process.umask(PRIVATE_UMASK);
  const config = loadConfigOrExit();
  const logger = pino(loggerOptions(config.logLevel));
  for (const message of config.startWarnings) logger.warn(message);
  // Before anything that makes spans (docs/decisions/0091); null when OTEL_EXPORTER_OTLP_ENDPOINT is unset.
  const tracing = await startTracing(config.tracing, 'web');
  // Before PGlite compiles: V8 reads them when it compiles (docs/decisions/0054).
  setV8Flags(v8FlagsFor(config.database.kind));
  if (config.database.kind === 'pglite') capYoungGeneration();
  const database = await openDatabase(config.database, logger);
  const jobs = await startJobQueue(database, { logger, email: config.email, channels: config.channels, briefs: config.alertBriefs, supervise: config.runtime.runWorkers });
  // One per process: live runs and Test on history share each provider's rate budget through it.
  const marketData = createMarketData(config.market, { logger, db: database.db });
  // Started right after the app is built, and before it listens: the check never sees it missing.
  let workers: Workers | null = null;
  const jobQueueCheck = async () => {
    if (!workers) throw new Error('the workers have not started');
    await workers.check();
  };
  const readinessChecks = config.runtime.runWorkers ? [{ name: 'jobQueue', check: jobQueueCheck }] : [];
  const app = await buildApp({ config, database, logger, jobs, enqueueEmail: jobs.enqueueEmail, enqueueDelivery: jobs.enqueueDelivery, briefJobs: jobs, marketData, readinessChecks });
  // Embedded (PGlite) always runs its agents here; with PostgreSQL, RUN_WORKERS=false leaves
  // them to `npm run worker` processes.
  workers = config.runtime.runWorkers
    ? await startWorkers({ config, database, jobs, logger, notifications: app.notifications, channels: app.channels, marketData, events: app.events })
    : null;

  let metricsServer: MetricsServer | null = null;
  let closing = false;
  const shutdown = (signal: string) => {
    if (closing) return;
    closing = true;
    logger.info({ signal }, 'shutting down: no new connections, finishing in-flight requests');
    const deadline = setTimeout(() => {
      logger.error('shutdown took longer than 10 s; exiting anyway');
      process.exit(1);
    }, SHUTDOWN_DEADLINE_MS);
    deadline.unref();
    app
      .close()
      .then(() => workers?.stop())
      .then(() => marketData.close())
      .then(() => jobs.stop())
      .then(() => database.close())
      .then(() => metricsServer?.close())
      .then(() => tracing?.shutdown())
      .then(() => {
        logger.info('shut down cleanly');
        process.exit(0);
      })
      .catch((err: unknown) => {
        logger.error({ err }, 'error during shutdown');
        process.exit(1);
      });
  };
  process.on('SIGTERM', () => shutdown('SIGTERM'));
  process.on('SIGINT', () => shutdown('SIGINT'));

  await app.listen({ port: config.port, host: config.host });
  metricsServer = config.metrics.port === null ? null : await startMetricsServer({ ...config.metrics, port: config.metrics.port, logger });
  if (metricsServer) logger.info({ metrics: `${metricsServer.url}${METRICS_PATH}` }, 'metrics listening');
  logger.info({ url: config.publicUrl, auth: config.auth.provider, database: database.kind }, 'server ready');
  // Start-up (migrations, unpacking the data directory, PGlite's compile) grows V8's young
  // generation to its largest (~128 MB committed for ~10 MB live) and the old one with garbage;
  // an idle server may keep both for a long time. One memory-reducing collection right after
  // start returns them to the system (~140 MB, docs/decisions/0054). On a later turn: start-up's
  // last promises have settled by then.
  if (database.kind === 'pglite') setTimeout(collectGarbageAndShrink, 100).unref();
}

main().catch((err: unknown) => {
  // Another process on the same DATA_DIR is a situation, not a bug: its sentence says what to do.
  if (err instanceof DataDirInUseError) console.error(`Server failed to start: ${err.message}`);
  else console.error('Server failed to start:', err);
  process.exit(1);
});
