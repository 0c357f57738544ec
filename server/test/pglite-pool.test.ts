import type { PGlite } from '@electric-sql/pglite';
import { beforeAll, describe, expect, it } from 'vitest';
import { defaultAgentConfig, findTemplate } from '../../contracts/agents.ts';
import { newMemoryPglite } from '../db/client.ts';
import { catalogOf, pglitePoolStats, takePglite } from './pglite-pool.ts';
import { createTestApp, migratedTemplate } from './test-app.ts';

const ADMIN = 'admin@example.com';

/** Everything a test could see of the database: each table's rows, each sequence, the catalog and
 * the session's settings. */
async function stateOf(client: PGlite): Promise<Record<string, string>> {
  const state: Record<string, string> = { catalog: await catalogOf(client) };
  const tables = await client.query<{ name: string }>(
    `select format('%I.%I', n.nspname, c.relname) as name from pg_class c join pg_namespace n on n.oid = c.relnamespace
     where c.relkind in ('r', 'p') and n.nspname not in ('pg_catalog', 'information_schema') and n.nspname not like 'pg\\_%' order by 1`,
  );
  for (const { name } of tables.rows) {
    const { rows } = await client.query<{ rows: string }>(`select count(*) || ':' || md5(coalesce(string_agg((r.*)::text, '|' order by (r.*)::text), '')) as rows from ${name} r`);
    state[name] = rows[0]!.rows;
  }
  const sequences = await client.query<{ name: string; value: string }>(`select sequencename as name, coalesce(last_value::text, 'unread') as value from pg_sequences order by 1`);
  for (const { name, value } of sequences.rows) state[`sequence ${name}`] = value;
  const settings = await client.query<{ settings: string }>(`select string_agg(name || '=' || setting, ' ' order by name) as settings from pg_settings where source = 'session'`);
  state.settings = settings.rows[0]!.settings ?? '';
  return state;
}

describe('the test apps’ PGlite pool', () => {
  let pristine: Record<string, string>;
  let blob: Blob;

  beforeAll(async () => {
    blob = await migratedTemplate();
    const fresh = newMemoryPglite(blob);
    try {
      pristine = await stateOf(fresh);
    } finally {
      await fresh.close();
    }
  });

  it('gives the next app an instance at the template’s state after an app wrote to it', async () => {
    const t = await createTestApp({ env: { ADMIN_EMAILS: ADMIN, MARKET_DATA: 'simulated' } });
    const admin = await t.signIn(ADMIN, 'Ada');
    await t.signIn('guest@example.com', 'Guest');
    const scanner = findTemplate('stock-market-scanner')!;
    const created = await t.request({ method: 'POST', url: '/api/agents', cookie: admin, payload: { templateId: scanner.id, name: 'Pooled', config: defaultAgentConfig(scanner) } });
    expect(created.statusCode).toBe(201);
    const [queue] = await t.jobs.boss.getQueues();
    expect(await t.jobs.boss.send(queue!.name, { n: 1 }, { startAfter: 3600 })).toBeTruthy();
    await t.database.pglite!.exec(`set statement_timeout = '5s'`);
    const written = await stateOf(t.database.pglite!);
    expect(written).not.toEqual(pristine);
    const before = { ...pglitePoolStats };
    await t.close();

    const next = await takePglite(blob);
    try {
      expect(pglitePoolStats.reused).toBe(before.reused + 1);
      expect(await stateOf(next.handle)).toEqual(pristine);
    } finally {
      await next.release();
    }
  });

  it('refuses the closed app’s late calls instead of letting them reach the next app’s database', async () => {
    const t = await createTestApp();
    const client = t.database.pglite!;
    await t.close();
    const next = await takePglite(blob);
    try {
      expect(() => client.query('select 1')).toThrow(TypeError);
      expect((await next.handle.query<{ one: number }>('select 1 as one')).rows).toEqual([{ one: 1 }]);
    } finally {
      await next.release();
    }
  });

  it('ends the LISTENs an app left open, so its callbacks hear nothing of the next app', async () => {
    const first = await takePglite(blob);
    const heard: string[] = [];
    await first.handle.listen('pool_test', (payload) => heard.push(`first ${payload}`));
    first.handle.onNotification((channel, payload) => heard.push(`first (any) ${channel} ${payload}`));
    await first.release();
    const next = await takePglite(blob);
    try {
      // The next app listens on the same channel, as every app's event bus does.
      await next.handle.listen('pool_test', (payload) => heard.push(`next ${payload}`));
      await next.handle.exec(`notify pool_test, 'after'`);
      await next.handle.query('select 1');
      expect(heard).toEqual(['next after']);
    } finally {
      await next.release();
    }
  });

  it('undoes what the app replaced on the instance (the fair queue’s wrappers)', async () => {
    const first = await takePglite(blob);
    const original = first.handle.query;
    (first.handle as { query: unknown }).query = () => Promise.reject(new Error('the first app’s wrapper'));
    await first.release();
    const next = await takePglite(blob);
    try {
      expect((await next.handle.query<{ one: number }>('select 1 as one')).rows).toEqual([{ one: 1 }]);
      expect(typeof original).toBe('function');
    } finally {
      await next.release();
    }
  });

  it('drops an instance whose catalog changed and one the test closed', async () => {
    const changed = await takePglite(blob);
    await changed.handle.exec('create table left_behind (id int)');
    const closed = await takePglite(blob);
    await closed.handle.close();
    const before = { ...pglitePoolStats };
    await changed.release();
    await closed.release();
    expect(pglitePoolStats.dropped).toBe(before.dropped + 2);
    const next = await takePglite(blob);
    try {
      expect(await stateOf(next.handle)).toEqual(pristine);
    } finally {
      await next.release();
    }
  });

  it('starts the next app at the template’s state after a transaction left open, whole or failed', async () => {
    for (const leftover of [`begin; select set_config('statement_timeout', '5s', false)`, `begin; select 1/0`]) {
      const first = await takePglite(blob);
      await first.handle.exec(leftover).catch(() => {});
      await first.release();
      const next = await takePglite(blob);
      try {
        expect(await stateOf(next.handle)).toEqual(pristine);
      } finally {
        await next.release();
      }
    }
  });
});
