import pino from 'pino';
import { loadConfigOrExit } from './config.ts';
import { openDatabase } from './db/client.ts';
import { loggerOptions } from './lib/logger.ts';
import { startTracing } from './lib/telemetry/start-tracing.ts';
import { startHealthServer } from './modules/health/health-server.ts';
import { createHealthService } from './modules/health/health.service.ts';
import { startJobQueue } from './modules/runtime/job-queue.ts';
import { startWorkers } from './modules/runtime/workers.ts';

const SHUTDOWN_DEADLINE_MS = 30_000;

/**
 * `npm run worker`: a process that only runs agents (no HTTP). Needs PostgreSQL, since PGlite
 * belongs to the one process that opened it; start as many as the load needs.
 */
async function main(): Promise<void> {
  const config = loadConfigOrExit();
  if (config.database.kind !== 'postgres') {
    console.error('npm run worker needs DATABASE_URL (PostgreSQL): the embedded database runs its workers inside `npm start`.');
    process.exit(1);
  }
  const logger = pino(loggerOptions(config.logLevel));
  for (const message of config.startWarnings) logger.warn(message);
  const tracing = await startTracing(config.tracing, 'worker');
  const database = await openDatabase(config.database, logger);
  const jobs = await startJobQueue(database, { logger, email: config.email, channels: config.channels, briefs: config.alertBriefs, supervise: true });
  const workers = await startWorkers({ config, database, jobs, logger });
  // Its health without a web server (docs/decisions/0045): ready while the database and the
  // workers' job queue answer; not ready from the moment it is told to stop.
  const health = createHealthService({ database, checks: [{ name: 'jobQueue', check: () => workers.check() }] });
  const port = config.runtime.workerHealthPort;
  const healthServer = port === null ? null : await startHealthServer({ health, host: config.host, port, logger, metricsToken: config.metrics.token });
  logger.info(healthServer ? { health: healthServer.url } : {}, 'worker ready');

  let closing = false;
  const shutdown = (signal: string) => {
    if (closing) return;
    closing = true;
    logger.info({ signal }, 'worker stopping: finishing the runs in progress');
    setTimeout(() => {
      logger.error('worker shutdown took too long; exiting (unfinished runs will be marked interrupted)');
      process.exit(1);
    }, SHUTDOWN_DEADLINE_MS).unref();
    workers
      .stop()
      .then(() => jobs.stop())
      .then(() => database.close())
      .then(() => healthServer?.close())
      .then(() => tracing?.shutdown())
      .then(() => process.exit(0))
      .catch((err: unknown) => {
        logger.error({ err }, 'error during worker shutdown');
        process.exit(1);
      });
  };
  process.on('SIGTERM', () => shutdown('SIGTERM'));
  process.on('SIGINT', () => shutdown('SIGINT'));
}

main().catch((err: unknown) => {
  console.error('Worker failed to start:', err);
  process.exit(1);
});
