import pg from 'pg';
import type { SQL } from 'drizzle-orm';
import { PgDialect } from 'drizzle-orm/pg-core';
import type { Db } from './client.ts';

const dialect = new PgDialect();

/**
 * Runs `query` as a named prepared statement where the database is PostgreSQL (the app's pool):
 * each connection parses and plans it once, then only binds and executes it. For the runtime's
 * statements that run for every batch of runs (docs/decisions/0104), parsing and planning their
 * CTEs cost a tenth of the database's time per run. `name` must always come with the same SQL
 * text (only the values differ): a connection keeps the statement by name. On PGlite, and within
 * a transaction (`db` is then not the pool), it is an ordinary statement.
 */
export async function executeNamed<T>(db: Db, name: string, query: SQL): Promise<T[]> {
  const client = (db as unknown as { $client?: unknown }).$client;
  if (client instanceof pg.Pool) {
    const { sql: text, params } = dialect.sqlToQuery(query);
    return (await client.query({ name, text, values: params })).rows as T[];
  }
  const result: unknown = await db.execute(query);
  // node-postgres answers a raw execute() with `rows`, PGlite's driver too.
  return (Array.isArray(result) ? result : (result as { rows: T[] }).rows) as T[];
}
