import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../../test/test-app.ts';
import { until } from '../../test/until.ts';

const onPglite = process.env.TEST_DATABASE !== 'postgres';

describe.runIf(onPglite)('requests waiting for PGlite (docs/decisions/0050)', () => {
  let t: TestApp;
  let cookie: string;
  beforeAll(async () => {
    t = await createTestApp({ env: { DB_QUEUE_MAX_WAIT_MS: '10' } });
    cookie = await t.signIn('admin@example.com', 'Admin');
  });
  afterAll(async () => t.close());

  it('answers 503 with Retry-After when the wait would be too long, and every request gets an answer', async () => {
    // Holds the database so that the requests below must queue behind it.
    let release!: () => void;
    const held = t.database.pglite!.transaction(() => new Promise<void>((resolve) => (release = resolve)));
    const answers = Promise.all(Array.from({ length: 30 }, () => t.request({ url: '/api/notifications', cookie })));
    await new Promise((r) => setTimeout(r, 50));
    release();
    await held;
    const statuses = (await answers).map((r) => r.statusCode);
    expect(statuses.filter((s) => s !== 200 && s !== 503)).toEqual([]);
    const busy = (await answers).find((r) => r.statusCode === 503)!;
    expect(busy).toBeDefined();
    expect(Number(busy.headers['retry-after'])).toBeGreaterThanOrEqual(1);
    expect(busy.headers['cache-control']).toBe('no-store');
    expect(busy.json()).toMatchObject({ error: 'Service Unavailable' });
    // Once the database is free again, the same requests are served.
    await until(() => t.request({ url: '/api/notifications', cookie }), (r) => r.statusCode === 200);
  });
});
