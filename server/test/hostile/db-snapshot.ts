import { sql } from 'drizzle-orm';
import type { Db } from '../../db/client.ts';

/** Each table's row count and a hash of all its rows, by table name. */
export type Snapshot = Record<string, string>;

/**
 * Takes snapshots of every table of ours (whatever the schema holds now) and of pg-boss's jobs,
 * in one round trip: each row as JSON, hashed to 64 bits, summed (so no sort is needed).
 * `sessions.last_seen_at` is left out: being signed in touches it (once a minute), whatever
 * the request asked for.
 */
export async function snapshotter(db: Db): Promise<() => Promise<Snapshot>> {
  const tables = rowsOf<{ name: string }>(
    await db.execute(sql`
      select quote_ident(table_schema) || '.' || quote_ident(table_name) as name from information_schema.tables
      where table_type = 'BASE TABLE' and (table_schema = 'public' or (table_schema = 'pgboss' and table_name = 'job'))
      order by 1`),
  ).map((t) => t.name);
  if (!tables.includes('public.users') || !tables.includes('pgboss.job')) throw new Error(`unexpected tables: ${tables.join(', ')}`);
  const columns = tables.map((table) => {
    const row = `(to_jsonb(t) - 'last_seen_at')::text`;
    return `'${table}', (select count(*) || ':' || coalesce(sum(hashtextextended(${row}, 0)), 0) from ${table} t)`;
  });
  const query = sql.raw(`select json_build_object(${columns.join(', ')}) as snapshot`);
  return async () => {
    const [row] = rowsOf<{ snapshot: Snapshot | string }>(await db.execute(query));
    return typeof row!.snapshot === 'string' ? (JSON.parse(row!.snapshot) as Snapshot) : row!.snapshot;
  };
}

/** PGlite's and node-postgres's execute results both carry `rows`. */
function rowsOf<T>(result: unknown): T[] {
  return (Array.isArray(result) ? result : (result as { rows: T[] }).rows) as T[];
}
