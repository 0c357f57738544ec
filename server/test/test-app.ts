import { randomBytes } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import type { FastifyBaseLogger, FastifyInstance, InjectOptions, LightMyRequestResponse } from 'fastify';
import pino from 'pino';
import { inject } from 'vitest';
import { buildApp } from '../app.ts';
import { loadConfig, type Config } from '../config.ts';
import { openDatabase, type Database } from '../db/client.ts';
import type { EnqueueDelivery } from '../modules/channels/channels.service.ts';
import type { ReadinessCheck } from '../modules/health/health.service.ts';
import { startJobQueue, type JobQueue } from '../modules/runtime/job-queue.ts';
import { adminQuery, buildPgliteTemplate, databaseUrl, dropPostgresDatabase } from './database-templates.ts';
import { takePglite } from './pglite-pool.ts';

export const TEST_ORIGIN = 'http://localhost:3000';

export type TestApp = {
  app: FastifyInstance;
  database: Database;
  /** The app's job queue (pg-boss): tests start workers on it with startRuntime. */
  jobs: JobQueue;
  config: Config;
  /** Moves the app's clock (sessions, schedules) forward. */
  advanceTime(ms: number): void;
  /** The app's clock: real time plus whatever advanceTime added. */
  now(): Date;
  /** Signs in through the local sign-in route and returns the session cookie header. */
  signIn(email: string, name?: string): Promise<string>;
  /** inject() with our Origin on state-changing requests unless the test sets its own. */
  request(options: InjectOptions & { cookie?: string }): Promise<LightMyRequestResponse>;
  close(): Promise<void>;
};

/**
 * A real app on a fresh database: PGlite in memory by default, or a new database on the real
 * PostgreSQL that script/test starts when the suite runs as `server-postgres`.
 */
export async function createTestApp(
  options: {
    env?: Record<string, string>;
    clientDir?: string;
    /** For the app, its database and its job queue; silent by default (the secrets test reads every line). */
    logger?: FastifyBaseLogger;
    /** Takes the app's channel deliveries instead of its one background attempt each, so a test
     * can drive each attempt (retries) itself. */
    enqueueDelivery?: EnqueueDelivery;
    /** What /api/health/ready asks besides the database (index.ts adds the workers' job queue). */
    readinessChecks?: ReadinessCheck[];
    /** PostgreSQL: a second app (as another process would be) on this app's database, with its
     * own pool, job queue and LISTEN connection. */
    sameDatabaseAs?: TestApp;
  } = {},
): Promise<TestApp> {
  const shared = options.sameDatabaseAs?.config.database;
  if (options.sameDatabaseAs && shared?.kind !== 'postgres') throw new Error('sameDatabaseAs needs PostgreSQL');
  const postgres =
    shared?.kind === 'postgres' ? { url: shared.url, drop: async () => {} } : process.env.TEST_DATABASE === 'postgres' ? await createPostgresDatabase() : null;
  const config = loadConfig(
    {
      NODE_ENV: 'test',
      LOG_LEVEL: 'silent',
      PUBLIC_URL: TEST_ORIGIN,
      SIGN_IN_RATE_LIMIT: '1000',
      // No test reaches the real Telegram: a loopback address the outbound door refuses, unless
      // a test names its fake (and allows loopback).
      TELEGRAM_BASE_URL: 'https://127.0.0.1:9',
      // PGlite's fair queue sheds a request that would wait over 2 s (503): a test of 300 presses
      // at once on a loaded machine would meet that instead of the rule it checks. Shedding has
      // its own tests (server/lib/http/db-queue.api.test.ts), which set their bound.
      DB_QUEUE_MAX_WAIT_MS: '60000',
      ...(postgres ? { DATABASE_URL: postgres.url } : {}),
      ...options.env,
    },
    { inMemoryDatabase: true },
  );
  const logger = options.logger ?? pino({ level: 'silent' });
  // An in-memory PGlite at the template's state, used again after this app (server/test/pglite-pool.ts).
  const pooled = config.database.kind === 'pglite' && config.database.dataDir === null ? await takePglite(await migratedTemplate()) : null;
  const database = await openDatabase(config.database, logger, pooled ? { pglite: pooled.handle } : {}).catch(async (err: unknown) => {
    await pooled?.release();
    throw err;
  });
  const jobs = await startJobQueue(database, { logger, email: config.email, briefs: config.alertBriefs, supervise: false });
  let offset = 0;
  const now = () => new Date(Date.now() + offset);
  const app = await buildApp({
    config,
    database,
    logger,
    jobs,
    now,
    clientDir: options.clientDir ?? '/nonexistent-client-dir',
    ...(options.enqueueDelivery ? { enqueueDelivery: options.enqueueDelivery } : {}),
    ...(options.readinessChecks ? { readinessChecks: options.readinessChecks } : {}),
  });
  await app.ready();

  const request: TestApp['request'] = ({ cookie, ...opts }) => {
    const headers: Record<string, string> = { ...(opts.headers as Record<string, string> | undefined) };
    const method = (opts.method ?? 'GET').toUpperCase();
    if (!['GET', 'HEAD', 'OPTIONS'].includes(method) && !('origin' in headers)) headers.origin = TEST_ORIGIN;
    if (cookie) headers.cookie = cookie;
    return app.inject({ ...opts, headers });
  };

  return {
    app,
    database,
    jobs,
    config,
    advanceTime: (ms) => {
      offset += ms;
    },
    now,
    request,
    async signIn(email, name = email.split('@')[0]!) {
      const res = await request({ method: 'POST', url: '/api/auth/local/login', payload: { email, name } });
      if (res.statusCode !== 200) throw new Error(`sign-in failed: ${res.statusCode} ${res.body}`);
      const cookie = res.cookies.find((c) => c.name === 'sid' || c.name === '__Host-sid');
      return `${cookie!.name}=${cookie!.value}`;
    },
    async close() {
      await app.close();
      await jobs.stop();
      // A pooled PGlite is reset for the next app instead (or closed when it cannot be).
      await (pooled ? pooled.release() : database.close());
      await postgres?.drop();
    },
  };
}

let template: Promise<Blob> | undefined;

/**
 * The migrated PGlite each test app starts from a copy of: the run's, made once by the global
 * setup (server/test/global-setup.ts), or made here once per test file when there is none.
 */
export function migratedTemplate(): Promise<Blob> {
  template ??= (async () => {
    const provided = inject('pgliteTemplate');
    if (!provided) return buildPgliteTemplate();
    return new Blob([await readFile(provided.file)], { type: provided.type });
  })();
  return template;
}

/** A new database on the test server: a copy of the run's migrated one when there is one. */
async function createPostgresDatabase(): Promise<{ url: string; drop(): Promise<void> }> {
  const adminUrl = process.env.TEST_POSTGRES_URL;
  if (!adminUrl) throw new Error('TEST_DATABASE=postgres needs TEST_POSTGRES_URL');
  const name = `test_${randomBytes(6).toString('hex')}`;
  const from = inject('postgresTemplate');
  await createDatabase(adminUrl, name, from);
  return {
    url: databaseUrl(adminUrl, name),
    drop: () => dropPostgresDatabase(adminUrl, name),
  };
}

/**
 * `create database … template` refuses while another session is copying the same template
 * (PostgreSQL: "source database is being accessed by other users"): test files run in parallel, so
 * it is tried again.
 */
async function createDatabase(adminUrl: string, name: string, template: string | undefined): Promise<void> {
  for (let attempt = 1; ; attempt++) {
    try {
      await adminQuery(adminUrl, template ? `create database ${name} template ${template}` : `create database ${name}`);
      return;
    } catch (err) {
      const inUse = (err as { code?: string }).code === '55006';
      if (!inUse || attempt >= 50) throw err;
      await new Promise((resolve) => setTimeout(resolve, 20 * attempt));
    }
  }
}
