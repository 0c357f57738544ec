import { afterEach, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../../test/test-app.ts';

describe('GET /api/health', () => {
  let t: TestApp;
  afterEach(async () => t?.close().catch(() => {}));

  it('answers ok while the database answers', async () => {
    t = await createTestApp();
    const res = await t.request({ url: '/api/health' });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({ status: 'ok' });
    expect(res.headers['cache-control']).toBe('no-store');
  });

  it('answers 503 JSON when the database is unreachable', async () => {
    t = await createTestApp();
    await t.database.close();
    const res = await t.request({ url: '/api/health' });
    expect(res.statusCode).toBe(503);
    expect(res.json()).toMatchObject({ status: 'unavailable', error: 'Service Unavailable' });
  });

  it('answers 503 JSON on API reads too, not a crash or a 500', async () => {
    t = await createTestApp();
    await t.database.close();
    const res = await t.request({ url: '/api/articles' });
    expect(res.statusCode).toBe(503);
    expect(res.json()).toEqual({ error: 'Service Unavailable', message: 'The database is unavailable. Please try again shortly.' });
  });
});
