import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../test/test-app.ts';
import { executeNamed } from './named-statement.ts';

const onPostgres = process.env.TEST_DATABASE === 'postgres';

/**
 * Decision 0104: the runtime's per-batch statements are named prepared statements on PostgreSQL
 * (parsed and planned once per connection), ordinary statements on PGlite and in a transaction.
 */
describe('named statements', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp();
  });
  afterAll(async () => {
    await t?.close();
  });

  // The statement looks for itself among its connection's prepared statements: there while it
  // runs when it was prepared by name (PostgreSQL's Parse comes before its Execute).
  const prepared = (db: TestApp['database']['db'], value: number, name = 'named_statement_probe') =>
    executeNamed<{ prepared: boolean; value: number }>(db, name, sql`select exists (select 1 from pg_prepared_statements where name = ${name}) as prepared, ${value}::int as value`);

  it(`answers the rows with each call's values${onPostgres ? ', prepared by name on PostgreSQL' : ', as an ordinary statement on PGlite'}`, async () => {
    // More calls than the pool has connections: each connection prepares it once and reuses it.
    const answers = await Promise.all(Array.from({ length: 30 }, (_, i) => prepared(t.database.db, i)));
    expect(answers.map((rows) => rows[0]!.value)).toEqual(Array.from({ length: 30 }, (_, i) => i));
    expect(answers.every((rows) => rows[0]!.prepared === onPostgres)).toBe(true);
  });

  it('is an ordinary statement within a transaction, which holds its own connection', async () => {
    const rows = await t.database.db.transaction((tx) => prepared(tx, 7, 'named_statement_in_transaction'));
    expect(rows).toEqual([{ prepared: false, value: 7 }]);
  });
});
