import { sql } from 'drizzle-orm';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../test/test-app.ts';

const onPostgres = process.env.TEST_DATABASE === 'postgres';

/** A connection's server process ending while our code holds it (PostgreSQL restarted, a proxy cut it). */
describe.runIf(onPostgres)('a database connection lost while it is checked out', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp();
  });
  afterAll(async () => {
    await t?.close();
  });

  it('fails the work that held it with the cause, and the process goes on serving', async () => {
    const admin = new pg.Client({ connectionString: t.database.url! });
    await admin.connect();
    try {
      const held = t.database.db.transaction(async (tx) => {
        const result = (await tx.execute(sql`select pg_backend_pid() as pid`)) as unknown as { rows: Array<{ pid: number }> };
        const [row] = result.rows;
        // Between statements, no query running: the connection's end reaches the client as an
        // 'error' event, which the pool does not listen to while the client is checked out.
        await admin.query('select pg_terminate_backend($1)', [row!.pid]);
        await new Promise((resolve) => setTimeout(resolve, 300));
        await tx.execute(sql`select 1`);
      });
      await expect(held).rejects.toThrow();
    } finally {
      await admin.end();
    }
    // Without a listener on checked-out clients the 'error' event would have killed the process
    // (vitest reports it as an unhandled error); the pool goes on with a new connection.
    const res = await t.request({ method: 'GET', url: '/api/health/ready' });
    expect(res.statusCode).toBe(200);
  });
});
