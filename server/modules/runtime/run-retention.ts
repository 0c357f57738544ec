import { setImmediate as nextTurn } from 'node:timers/promises';
import type { FastifyBaseLogger as Logger } from 'fastify';
import type { Db } from '../../db/client.ts';
import { removeOldRuns } from './run-retention.repo.ts';

const DAY_MS = 24 * 60 * 60 * 1000;
/** Runs looked at per statement: each batch is a short transaction holding at most this many row locks. */
export const RETENTION_BATCH_SIZE = 1_000;

export type RunRetention = {
  /**
   * One pass: removes every finished run older than the period (beyond each agent's latest
   * ones) in batches, each its own statement, yielding to other work between them, and answers
   * how many went. A pass asked for while one is going joins it.
   */
  purge(): Promise<number>;
  /** Ends a pass after its current batch (the process is closing). */
  stop(): Promise<void>;
};

/**
 * Run history that stays small (issue 35 item 2, docs/decisions/0101): called by the hourly
 * maintenance of each web process; several processes' passes meet only on rows, which each
 * skips when another holds them.
 */
export function createRunRetention({
  db,
  logger,
  now = () => new Date(),
  days,
  keepLast,
  batchSize = RETENTION_BATCH_SIZE,
}: {
  db: Db;
  logger: Logger;
  now?: () => Date;
  days: number;
  keepLast: number;
  batchSize?: number;
}): RunRetention {
  let pass: Promise<number> | null = null;
  let stopping = false;

  async function removeAll(): Promise<number> {
    const cut = new Date(now().getTime() - days * DAY_MS);
    let afterId = 0;
    let deleted = 0;
    let marketsDeleted = 0;
    let batches = 0;
    while (!stopping) {
      const batch = await removeOldRuns(db, { afterId, cut, keepLast, limit: batchSize });
      deleted += batch.deleted;
      marketsDeleted += batch.marketsDeleted;
      batches++;
      if (batch.reachedCut || batch.lastId === null || batch.scanned < batchSize) break;
      afterId = batch.lastId;
      // The runtime's statements queued meanwhile go first (on PGlite, one connection is shared).
      await nextTurn();
    }
    logger.info({ deleted, marketsDeleted, batches, olderThan: cut.toISOString(), keepLast }, 'removed finished runs older than the retention period');
    return deleted;
  }

  return {
    purge() {
      pass ??= removeAll().finally(() => {
        pass = null;
      });
      return pass;
    },
    async stop() {
      stopping = true;
      await pass?.catch(() => {});
    },
  };
}
