import { sql } from 'drizzle-orm';
import type { Db } from '../../db/client.ts';

/** How many rows of each table were written (inserted, changed or deleted) so far, by table name. */
export type Snapshot = Record<string, number>;

/**
 * Counts the writes to every table of ours (whatever the schema holds now) and to pg-boss's jobs:
 * a row trigger on each adds one to the table's count in `hostile_changes` for each row inserted,
 * changed or deleted (and a statement trigger for a TRUNCATE), so a snapshot is one small read,
 * not a hash of every row (which took most of this test's time as the tables grew). An update
 * that leaves the row as it was is no change, and `sessions.last_seen_at` is left out: being
 * signed in touches it (once a minute), whatever the request asked for. A write rolled back
 * rolls its count back with it. The test's own database only: made by createTestApp for it.
 */
export async function snapshotter(db: Db): Promise<() => Promise<Snapshot>> {
  const tables = rowsOf<{ name: string }>(
    await db.execute(sql`
      select quote_ident(table_schema) || '.' || quote_ident(table_name) as name from information_schema.tables
      where table_type = 'BASE TABLE' and (table_schema = 'public' or (table_schema = 'pgboss' and table_name = 'job'))
      order by 1`),
  ).map((t) => t.name);
  if (!tables.includes('public.users') || !tables.includes('pgboss.job')) throw new Error(`unexpected tables: ${tables.join(', ')}`);
  await db.execute(sql.raw('create table public.hostile_changes (table_name text primary key, changes bigint not null)'));
  await db.execute(
    sql.raw(`
      create function public.hostile_count_change() returns trigger language plpgsql as $$
      begin
        if tg_op = 'UPDATE' and (to_jsonb(old) - 'last_seen_at') = (to_jsonb(new) - 'last_seen_at') then
          return null;
        end if;
        insert into public.hostile_changes as c values (tg_argv[0], 1)
          on conflict (table_name) do update set changes = c.changes + 1;
        return null;
      end $$`),
  );
  for (const table of tables) {
    const name = `'${table.replaceAll("'", "''")}'`;
    await db.execute(sql.raw(`create trigger hostile_row_change after insert or update or delete on ${table} for each row execute function public.hostile_count_change(${name})`));
    await db.execute(sql.raw(`create trigger hostile_truncate after truncate on ${table} for each statement execute function public.hostile_count_change(${name})`));
  }
  const query = sql.raw('select table_name, changes from public.hostile_changes');
  return async () => {
    const snapshot: Snapshot = {};
    for (const row of rowsOf<{ table_name: string; changes: string | number }>(await db.execute(query))) snapshot[row.table_name] = Number(row.changes);
    return snapshot;
  };
}

/** PGlite's and node-postgres's execute results both carry `rows`. */
function rowsOf<T>(result: unknown): T[] {
  return (Array.isArray(result) ? result : (result as { rows: T[] }).rows) as T[];
}
