import { randomBytes } from 'node:crypto';
import pg from 'pg';
import pino from 'pino';
import { openDatabase } from '../db/client.ts';
import { startJobQueue } from '../modules/runtime/job-queue.ts';

declare module 'vitest' {
  interface ProvidedContext {
    /** The migrated PGlite every test app of the `server` project starts from (a tar file). */
    pgliteTemplate?: { file: string; type: string };
    /** The migrated database every test app of `server-postgres` is created from. */
    postgresTemplate?: string;
  }
}

/**
 * Migrated databases the test apps start from: made once per test run (server/test/global-setup.ts)
 * instead of once per test file, since migrating a new PGlite (initdb, the migrations, pg-boss's
 * schema) costs seconds of CPU and a test file needs only a copy.
 */

/**
 * A new PGlite, migrated and with pg-boss's tables, dumped as an uncompressed tar. Without the
 * databases `template0` and `template1` (15 MB of the 43 MB; nothing here creates a database on
 * PGlite): every test app unpacks the tar and starts from it, 385 -> 260 ms and 530 -> 377 ms of
 * CPU each, measured; ~200 test apps a run (issue 33: the suite's time).
 */
export async function buildPgliteTemplate(): Promise<Blob> {
  const logger = pino({ level: 'silent' });
  const database = await openDatabase({ kind: 'pglite', dataDir: null }, logger);
  try {
    await migrated(database);
    const client = database.pglite!;
    await client.query(`update pg_database set datistemplate = false where datname in ('template0', 'template1')`);
    await client.query('drop database template0');
    await client.query('drop database template1');
    await client.query('checkpoint');
    return await database.dumpTemplate!();
  } finally {
    await database.close();
  }
}

/** A PostgreSQL database, migrated and with pg-boss's tables, for `create database … template`. */
export async function createPostgresTemplate(adminUrl: string): Promise<string> {
  const name = `test_template_${randomBytes(6).toString('hex')}`;
  await adminQuery(adminUrl, `create database ${name}`);
  const database = await openDatabase({ kind: 'postgres', url: databaseUrl(adminUrl, name) }, pino({ level: 'silent' }));
  try {
    await migrated(database);
  } finally {
    await database.close();
  }
  return name;
}

export async function dropPostgresDatabase(adminUrl: string, name: string): Promise<void> {
  await adminQuery(adminUrl, `drop database if exists ${name} with (force)`);
}

/** The admin URL pointed at another database of the same server. */
export function databaseUrl(adminUrl: string, name: string): string {
  const url = new URL(adminUrl);
  url.pathname = `/${name}`;
  return url.toString();
}

export async function adminQuery(adminUrl: string, statement: string): Promise<void> {
  const client = new pg.Client({ connectionString: adminUrl });
  await client.connect();
  try {
    await client.query(statement);
  } finally {
    await client.end();
  }
}

/** pg-boss's schema too (openDatabase ran ours), so each test app starts with its tables in place. */
async function migrated(database: Awaited<ReturnType<typeof openDatabase>>): Promise<void> {
  const logger = pino({ level: 'silent' });
  await (await startJobQueue(database, { logger, email: { retries: 0, retryDelaySeconds: 1 }, supervise: false })).stop();
}
