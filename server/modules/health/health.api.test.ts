import pino from 'pino';
import { afterEach, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../../test/test-app.ts';
import { startWorkers, type Workers } from '../runtime/workers.ts';

const silent = pino({ level: 'silent' });

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

// docs/decisions/0045: liveness and readiness for orchestration.
describe('GET /api/health/live and /api/health/ready', () => {
  let t: TestApp;
  let workers: Workers | null = null;
  afterEach(async () => {
    await workers?.stop().catch(() => {});
    workers = null;
    await t?.close().catch(() => {});
  });

  it('a web process: live always, ready while the database answers; both uncached', async () => {
    t = await createTestApp();
    const live = await t.request({ url: '/api/health/live' });
    expect(live.statusCode).toBe(200);
    expect(live.json()).toEqual({ status: 'ok' });
    expect(live.headers['cache-control']).toBe('no-store');
    const ready = await t.request({ url: '/api/health/ready' });
    expect(ready.statusCode).toBe(200);
    expect(ready.json()).toEqual({ status: 'ready', checks: { database: 'ok' } });
    expect(ready.headers['cache-control']).toBe('no-store');

    await t.database.close();
    const notReady = await t.request({ url: '/api/health/ready' });
    expect(notReady.statusCode).toBe(503);
    expect(notReady.json()).toEqual({ status: 'unavailable', error: 'Service Unavailable', message: 'Not ready: database failed', checks: { database: 'failed' } });
    // Still alive: an orchestrator must not restart a process that only waits for its database.
    expect((await t.request({ url: '/api/health/live' })).statusCode).toBe(200);
  });

  it('a process running the workers: ready reports the job queue too, not ready once the workers stop', async () => {
    t = await createTestApp({
      readinessChecks: [
        {
          name: 'jobQueue',
          check: async () => {
            if (!workers) throw new Error('no workers');
            await workers.check();
          },
        },
      ],
    });
    workers = await startWorkers({ config: t.config, database: t.database, jobs: t.jobs, logger: silent, now: t.now, notifications: t.app.notifications, events: t.app.events });
    const ready = await t.request({ url: '/api/health/ready' });
    expect(ready.statusCode).toBe(200);
    expect(ready.json()).toEqual({ status: 'ready', checks: { database: 'ok', jobQueue: 'ok' } });

    await workers.stop();
    const stopping = await t.request({ url: '/api/health/ready' });
    expect(stopping.statusCode).toBe(503);
    expect(stopping.json()).toMatchObject({ message: 'Not ready: jobQueue failed', checks: { database: 'ok', jobQueue: 'failed' } });
  });

  it('a stopped job queue is not ready', async () => {
    t = await createTestApp({ readinessChecks: [{ name: 'jobQueue', check: () => t.jobs.check() }] });
    expect((await t.request({ url: '/api/health/ready' })).statusCode).toBe(200);
    await t.jobs.stop();
    const res = await t.request({ url: '/api/health/ready' });
    expect(res.statusCode).toBe(503);
    expect(res.json()).toMatchObject({ checks: { database: 'ok', jobQueue: 'failed' } });
  });
});
