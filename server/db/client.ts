import { PGlite } from '@electric-sql/pglite';
import { sql } from 'drizzle-orm';
import type { PgDatabase, PgQueryResultHKT } from 'drizzle-orm/pg-core';
import { drizzle as drizzlePglite } from 'drizzle-orm/pglite';
import { migrate as migratePglite } from 'drizzle-orm/pglite/migrator';
import { drizzle as drizzlePg } from 'drizzle-orm/node-postgres';
import { migrate as migratePg } from 'drizzle-orm/node-postgres/migrator';
import pg from 'pg';
import type { FastifyBaseLogger as Logger } from 'fastify';
import type { Config } from '../config.ts';
import { createFairQueue, QueueFullError, type FairQueue } from '../lib/fair-queue.ts';
import { dbQueueRefused, dbQueueWait, watchPool } from '../lib/telemetry/metrics.ts';
import { inSpan, SpanKind } from '../lib/telemetry/tracing.ts';
import { makePrivate } from '../lib/private-files.ts';
import { claimDataDir, holdHandler, type HoldStill } from './data-dir-lock.ts';
import { dataDirStart, MIGRATIONS_FOLDER, PGLITE_TEMPLATE, type TemplateFiles } from './pglite-template.ts';
import * as schema from './schema.ts';

/** One type for both drivers: services and repos never know which database they run on. */
export type Db = PgDatabase<PgQueryResultHKT, typeof schema>;

export type Database = {
  db: Db;
  kind: 'pglite' | 'postgres';
  /** Throws when the database cannot answer. */
  ping(): Promise<void>;
  close(): Promise<void>;
  /** PGlite only: the migrated database as a dump, for OpenOptions.pgliteTemplate. */
  dumpTemplate?: () => Promise<Blob>;
  /** PGlite only: the instance itself, which the job queue shares (one connection per process). */
  pglite?: PGlite;
  /** PostgreSQL only: the connection string, for the job queue's own small pool. */
  url?: string;
  /** PGlite only: the queue in front of its one connection (docs/decisions/0050). */
  queue?: FairQueue;
  /** PGlite only: runs `work` after a CHECKPOINT with no statement running until it ends, so the
   * data directory's files are a consistent copy meanwhile (npm run backup; docs/decisions/0067). */
  holdStill?: HoldStill;
};

/**
 * PGlite runs one statement at a time: its work waits in a fair queue with a bound on how long a
 * request waits, instead of in PGlite's own lock without order among clients or limit. A
 * transaction holds its slot from BEGIN to COMMIT (its statements go through its own handle).
 */
function queueInFront(client: PGlite, queue: FairQueue): HoldStill {
  const query = client.query.bind(client);
  const exec = client.exec.bind(client);
  const transaction = client.transaction.bind(client);
  client.query = ((...args: Parameters<typeof query>) => inQueue(queue, statementSpan('query', args[0]), () => query(...args))) as typeof client.query;
  client.exec = (...args) => inQueue(queue, statementSpan('exec', args[0]), () => exec(...args));
  client.transaction = (...args) => inQueue(queue, statementSpan('transaction', null), () => transaction(...args));
  // One turn of the queue: nothing else runs, and a transaction is never caught half done. Its
  // length says nothing of the next statements', so it stays out of the queue's average.
  return (work) =>
    queue.run(
      async () => {
        await exec('checkpoint');
        return work();
      },
      { timed: false },
    );
}

/**
 * One piece of the embedded database's work through its queue, its wait measured (metrics) and,
 * inside a request's or a job's span, a span of its own (docs/decisions/0091).
 */
function inQueue<T>(queue: FairQueue, span: { name: string; text: string | null }, work: () => Promise<T>): Promise<T> {
  const queued = performance.now();
  return inSpan(span.name, { kind: SpanKind.CLIENT, childOnly: true, attributes: dbAttributes(span.text) }, () =>
    queue
      .run(() => {
        dbQueueWait.observe((performance.now() - queued) / 1000);
        return work();
      })
      .catch((err: unknown) => {
        if (err instanceof QueueFullError) dbQueueRefused.inc();
        throw err;
      }),
  );
}

/** A statement's span: its SQL text (with placeholders; the values are not recorded). */
function statementSpan(kind: 'query' | 'exec' | 'transaction', text: unknown): { name: string; text: string | null } {
  return { name: kind === 'transaction' ? 'db transaction' : 'db query', text: typeof text === 'string' ? text : null };
}

const SQL_TEXT_MAX = 2_000;
function dbAttributes(text: string | null): Record<string, string> {
  return { 'db.system.name': 'postgresql', ...(text ? { 'db.query.text': text.length > SQL_TEXT_MAX ? `${text.slice(0, SQL_TEXT_MAX)}…` : text } : {}) };
}

/**
 * PostgreSQL: each statement the app's pool runs is a span inside a request's or job's span.
 * Drizzle calls `query` with a config object or text and values, returning a promise, on the pool
 * and on a client it checked out for a transaction; the callback form (the pool's own use of its
 * clients) passes through untouched, so no statement has two spans.
 */
function traceStatements(target: { query: (...args: never[]) => unknown }): void {
  const query = target.query.bind(target) as (...args: unknown[]) => unknown;
  target.query = ((...args: unknown[]) => {
    if (typeof args.at(-1) === 'function' || typeof (args[0] as { submit?: unknown } | undefined)?.submit === 'function') return query(...args);
    const first = args[0];
    const text = typeof first === 'string' ? first : typeof (first as { text?: unknown } | undefined)?.text === 'string' ? (first as { text: string }).text : null;
    return inSpan('db query', { kind: SpanKind.CLIENT, childOnly: true, attributes: dbAttributes(text) }, () => query(...args) as Promise<unknown>);
  }) as never;
}

/** The setting under which migration 0015's triggers announce owners' changes. */
export const OWNER_CHANGE_NOTICES = 'app.owner_change_notices';

/**
 * The embedded database serves one process and a modest data set: PostgreSQL's default 128 MB
 * of shared buffers would be most of the server's memory (RSS ~330 MB vs ~205 MB at 16 MB).
 * `app.owner_change_notices`: the database announces every change to an owner's agents and
 * notifications (migration 0015), which this process's caches of those lists rely on
 * (docs/decisions/0059). Set for the server, not per session; the bus checks it at start.
 */
const PGLITE_CONF = ['shared_buffers=16MB', 'work_mem=4MB', 'maintenance_work_mem=16MB', `${OWNER_CHANGE_NOTICES}=on`];

/** Any constant shared by all processes: serialises migrations when several start at once. */
const MIGRATION_LOCK_KEY = 7_240_310_001;

export type OpenOptions = {
  /** A dump of an already-migrated PGlite data dir to start from (tests: ~10x faster than initdb). */
  pgliteTemplate?: Blob;
  /** In memory only: an instance already open (newMemoryPglite), which the tests reuse once it is
   * reset to their template (server/test/pglite-pool.ts); closing the database closes it. */
  pglite?: PGlite;
  /** Where a new data directory's starting point is (the build's, by default). */
  dataDirTemplate?: TemplateFiles;
};

export async function openDatabase(database: Config['database'] | { kind: 'pglite'; dataDir: string | null; maxWaitMs?: number }, logger: Logger, options: OpenOptions = {}): Promise<Database> {
  if (database.kind === 'pglite') {
    // Private before PGlite writes a byte (SECURITY.md: only the server's user reads DATA_DIR),
    // and again once it has unpacked a new cluster, whose files it makes 0666 itself.
    if (database.dataDir) makePrivate(database.dataDir);
    // Ours alone from here on; `npm run backup` asks for the database held still through it.
    let holdStill: HoldStill | null = null;
    const claim = database.dataDir ? await claimDataDir(database.dataDir, holdHandler(() => holdStill, logger)) : null;
    try {
      const opened = await openPglite(database.dataDir, database.maxWaitMs, logger, options);
      holdStill = opened.holdStill ?? null;
      return {
        ...opened,
        close: async () => {
          await claim?.release();
          await opened.close();
        },
      };
    } catch (err) {
      await claim?.release();
      throw err;
    }
  }

  const pool = new pg.Pool({
    connectionString: database.url,
    max: 10,
    connectionTimeoutMillis: 5_000,
    idleTimeoutMillis: 30_000,
  });
  // An idle client whose server went away emits here; without a listener the process dies.
  pool.on('error', (err) => logger.warn({ err }, 'idle database connection failed'));
  // The pool listens only to idle clients: one checked out (a transaction between statements, a
  // stream's reads) whose server goes away would emit with nobody listening, and the process
  // would die. Its caller's next statement fails with the cause; here it is only logged.
  pool.on('connect', (client) => {
    client.on('error', (err) => logger.warn({ err }, 'database connection failed while in use'));
    traceStatements(client);
  });
  traceStatements(pool);
  const unwatchPool = watchPool(pool);
  const db = drizzlePg({ client: pool, schema });

  const lockClient = await pool.connect();
  try {
    await lockClient.query('select pg_advisory_lock($1)', [MIGRATION_LOCK_KEY]);
    await migratePg(drizzlePg({ client: lockClient, schema }), { migrationsFolder: MIGRATIONS_FOLDER });
  } finally {
    await lockClient.query('select pg_advisory_unlock($1)', [MIGRATION_LOCK_KEY]).catch(() => {});
    lockClient.release();
  }
  logger.info('database ready (PostgreSQL)');
  return {
    db: db as unknown as Db,
    kind: 'postgres',
    ping: async () => void (await db.execute(sql`select 1`)),
    close: () => {
      unwatchPool();
      return pool.end();
    },
    url: database.url,
  };
}

/** An in-memory PGlite as openDatabase makes one (its settings), from `template` when given. */
export function newMemoryPglite(template?: Blob): PGlite {
  return new PGlite({ postgresqlconf: PGLITE_CONF, ...(template ? { loadDataDir: template } : {}) });
}

/** PGlite on `dataDir` (null: in memory), migrated, behind its fair queue. */
async function openPglite(dataDir: string | null, maxWaitMs: number | undefined, logger: Logger, options: OpenOptions): Promise<Database> {
  // A new data directory starts from the build's template when there is one (decisions 0054, 0105).
  const start = dataDir ? await dataDirStart(dataDir, options.dataDirTemplate ?? PGLITE_TEMPLATE) : null;
  if (start?.from === 'initdb') logger.info({ why: start.why }, 'new PGlite data directory: running initdb');
  const client = dataDir
    ? new PGlite(dataDir, { postgresqlconf: PGLITE_CONF, ...(start?.from === 'template' ? { loadDataDir: start.template } : {}) })
    : (options.pglite ?? newMemoryPglite(options.pgliteTemplate));
  await client.waitReady;
  if (dataDir) makePrivate(dataDir);
  const queue = createFairQueue({ concurrency: 1, maxWaitMs: maxWaitMs ?? 2_000 });
  const holdStill = queueInFront(client, queue);
  const db = drizzlePglite({ client, schema });
  await migratePglite(db, { migrationsFolder: MIGRATIONS_FOLDER });
  logger.info({ dataDir: dataDir ?? 'memory' }, 'database ready (PGlite)');
  return {
    db: db as unknown as Db, // PGlite's driver is a PgDatabase with its own result HKT.
    kind: 'pglite',
    ping: async () => void (await client.query('select 1')),
    close: () => client.close(),
    dumpTemplate: () => client.dumpDataDir('none'),
    pglite: client,
    queue,
    holdStill,
  };
}
