import type { PGlite } from '@electric-sql/pglite';
import { newMemoryPglite } from '../db/client.ts';

/**
 * The test apps' in-memory PGlite instances, used again within a worker process instead of a new
 * one per app. A new instance unpacks the template's ~670 files into its memory file system and
 * starts PostgreSQL: ~0.3 CPU-seconds, some 200 times a run (issue 33: the suite's time). An
 * instance comes back when its app closes and is put back to the template's state before the next
 * app gets it:
 *
 * - Each app gets its own handle (a revocable proxy): once the app has closed, anything of it that
 *   still reaches for the database (a late timer, a straggling delivery) fails as on a closed
 *   instance instead of writing into the next test's database.
 * - What the app changed on the instance (the fair queue's wrappers of query, exec, transaction)
 *   is undone, and its LISTENs still open are ended.
 * - The catalog must be as the template's (the same relations, types, functions, triggers,
 *   columns, constraints), else the instance is closed, not reused: a test that adds a table or a
 *   pg-boss queue leaves nothing behind.
 * - Every table is emptied and the template's rows put back (triggers off meanwhile), every
 *   sequence set to the template's value, and `discard all` ends the session's state (settings,
 *   prepared statements, temporary tables, advisory locks).
 *
 * An instance the test closed itself, or whose reset fails or takes over RESET_TIMEOUT_MS (a
 * transaction still running), is dropped. pglite-pool.test.ts checks a reset instance against a new
 * one.
 */

/** Kept idle per worker process: a test has one app at a time, now and then two. */
const MAX_IDLE = 2;
const RESET_TIMEOUT_MS = 10_000;

export type PooledPglite = {
  /** What the app uses as its PGlite. */
  handle: PGlite;
  /** After the app has closed: puts the instance back (reset) or closes it. */
  release(): Promise<void>;
};

type Baseline = { catalog: string; resetSql: string };

/** This worker's figures: instances made, lent again after a reset, and dropped (not as the template). */
export const pglitePoolStats = { created: 0, reused: 0, dropped: 0 };

let poolTemplate: Blob | undefined;
let baseline: Promise<Baseline> | undefined;
const idle: PGlite[] = [];

/** An instance at the template's state: one given back by an earlier app, or a new one. */
export async function takePglite(template: Blob): Promise<PooledPglite> {
  if (template !== poolTemplate) {
    // Another template (not within one run): nothing idle is of it.
    for (const client of idle.splice(0)) void client.close().catch(() => {});
    poolTemplate = template;
    baseline = undefined;
  }
  let client = idle.pop();
  if (client) pglitePoolStats.reused++;
  else {
    pglitePoolStats.created++;
    client = newMemoryPglite(template);
    await client.waitReady;
    // Read from the first new instance before any app has used it: the template's state.
    baseline ??= readBaseline(client);
    await baseline;
  }
  return lend(client);
}

function lend(client: PGlite): PooledPglite {
  /** The instance's own properties the app replaced, as they were. */
  const replaced = new Map<PropertyKey, PropertyDescriptor | undefined>();
  /** LISTENs (and notification callbacks) the app has not ended. */
  const subscriptions = new Set<() => unknown>();
  const listen: PGlite['listen'] = async (...args) => {
    const end = await client.listen(...args);
    const once: typeof end = (tx) => {
      subscriptions.delete(once);
      return end(tx);
    };
    subscriptions.add(once);
    return once;
  };
  const onNotification: PGlite['onNotification'] = (callback) => {
    const end = client.onNotification(callback);
    const once = () => {
      subscriptions.delete(once);
      end();
    };
    subscriptions.add(once);
    return once;
  };
  const { proxy, revoke } = Proxy.revocable(client, {
    get(target, property) {
      if (property === 'listen') return listen;
      if (property === 'onNotification') return onNotification;
      const value: unknown = Reflect.get(target, property, target);
      // PGlite's methods reach its private fields: they run on the instance, not the proxy.
      return typeof value === 'function' ? value.bind(target) : value;
    },
    set(target, property, value) {
      if (!replaced.has(property)) replaced.set(property, Object.getOwnPropertyDescriptor(target, property));
      return Reflect.set(target, property, value, target);
    },
  });
  let released = false;
  return {
    handle: proxy,
    async release() {
      if (released) return;
      released = true;
      revoke();
      for (const [property, descriptor] of replaced) {
        if (descriptor) Object.defineProperty(client, property, descriptor);
        else delete (client as unknown as Record<PropertyKey, unknown>)[property];
      }
      if (client.closed) {
        pglitePoolStats.dropped++;
        return;
      }
      try {
        await withTimeout(
          (async () => {
            for (const end of [...subscriptions]) await end();
            const { catalog, resetSql } = await baseline!;
            if ((await catalogOf(client)) !== catalog) throw new Error('the catalog changed');
            await client.exec(resetSql);
            await client.exec('discard all');
          })(),
          RESET_TIMEOUT_MS,
        );
      } catch {
        // Not as the template: a new instance serves the next app.
        pglitePoolStats.dropped++;
        void client.close().catch(() => {});
        return;
      }
      if (idle.length < MAX_IDLE) idle.push(client);
      else await client.close();
    },
  };
}

function withTimeout<T>(work: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`not done in ${ms} ms`)), ms);
  });
  return Promise.race([work, timeout]).finally(() => clearTimeout(timer));
}

/** The user tables and partitioned tables (every schema but PostgreSQL's own). */
const USER_TABLES = `
  select c.oid, format('%I.%I', n.nspname, c.relname) as name
  from pg_class c join pg_namespace n on n.oid = c.relnamespace
  where c.relkind in ('r', 'p') and n.nspname not in ('pg_catalog', 'information_schema') and n.nspname not like 'pg\\_%'
  order by 2`;

/** What the database is made of: counts and highest object ids of the catalogs a test could add to. */
export async function catalogOf(client: PGlite): Promise<string> {
  const catalogs = ['pg_class', 'pg_type', 'pg_proc', 'pg_trigger', 'pg_namespace', 'pg_constraint', 'pg_attrdef'];
  const parts = catalogs.map((catalog) => `select '${catalog}:' || count(*) || ':' || coalesce(max(oid::int8), 0) as part from ${catalog}`);
  parts.push(`select 'pg_attribute:' || count(*) from pg_attribute where attnum > 0 and not attisdropped`);
  const { rows } = await client.query<{ parts: string }>(`select string_agg(part, ' ' order by part) as parts from (${parts.join(' union all ')}) catalog`);
  return rows[0]!.parts;
}

/**
 * The template's state as one script: every table emptied and its rows put back (as JSON, through
 * json_populate_recordset, into the columns that are not generated), every sequence at its value.
 */
async function readBaseline(client: PGlite): Promise<Baseline> {
  const tables = (await client.query<{ oid: number; name: string }>(USER_TABLES)).rows;
  const statements = ['begin', "set local session_replication_role = 'replica'"];
  if (tables.length > 0) statements.push(`truncate ${tables.map((table) => table.name).join(', ')}`);
  for (const table of tables) {
    const { rows } = await client.query<{ rows: string | null }>(`select json_agg(r.*)::text as rows from ${table.name} r`);
    const json = rows[0]?.rows;
    if (!json) continue;
    const columns = (
      await client.query<{ name: string }>(
        `select format('%I', attname) as name from pg_attribute where attrelid = $1 and attnum > 0 and not attisdropped and attgenerated = '' order by attnum`,
        [table.oid],
      )
    ).rows.map((column) => column.name);
    let tag = 'rows';
    while (json.includes(`$${tag}$`)) tag += '_';
    const list = columns.join(', ');
    statements.push(`insert into ${table.name} (${list}) overriding system value select ${list} from json_populate_recordset(null::${table.name}, $${tag}$${json}$${tag}$)`);
  }
  // A sequence never read from starts again at its start; another goes on after its last value.
  const sequences = await client.query<{ statement: string }>(
    `select format('select setval(%L, %s, %s)', format('%I.%I', schemaname, sequencename), coalesce(last_value, start_value), case when last_value is null then 'false' else 'true' end) as statement
     from pg_sequences order by 1`,
  );
  statements.push(...sequences.rows.map((row) => row.statement));
  statements.push('commit');
  return { catalog: await catalogOf(client), resetSql: statements.join(';\n') };
}
