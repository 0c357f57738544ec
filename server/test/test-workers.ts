import pino from 'pino';
import { createMarketData } from '../modules/market/market-data.ts';
import { startWorkers, type Workers } from '../modules/runtime/workers.ts';
import type { TestApp } from './test-app.ts';

type WorkerOptions = Partial<Omit<Parameters<typeof startWorkers>[0], 'config' | 'database' | 'jobs'>>;

/**
 * The test app's workers (what a worker process runs), on its clock, with market data paced for
 * tests: a few ms between one exchange's requests and before a retry, instead of the exchange's
 * own spacing (Kraken's 1 s) and the 0.5 s first backoff. The runtime's tests count runs,
 * retries and alerts, never how long they waited; the pacing itself has its own tests
 * (server/integrations/market). Stopping the workers closes that market data too.
 */
export async function startTestWorkers(t: TestApp, options: WorkerOptions = {}): Promise<Workers> {
  const logger = options.logger ?? pino({ level: 'silent' });
  const now = options.now ?? t.now;
  const marketData = options.marketData ?? createMarketData(t.config.market, { logger, now, db: t.database.db, backoffMs: 5, rateLimitMs: 5 });
  const workers = await startWorkers({ config: t.config, database: t.database, jobs: t.jobs, ...options, logger, now, marketData });
  return {
    runtime: workers.runtime,
    check: () => workers.check(),
    async stop() {
      await workers.stop();
      if (!options.marketData) await marketData.close();
    },
  };
}
