import pino from 'pino';
import { afterEach, describe, expect, it } from 'vitest';
import { startHealthServer, type HealthServer } from './health-server.ts';
import { createHealthService } from './health.service.ts';

const silent = pino({ level: 'silent' });

// A worker's health port (WORKER_HEALTH_PORT, docs/decisions/0045), with a database that
// answers or not and a job queue check that passes or not.
describe('worker health server', () => {
  let server: HealthServer | null = null;
  afterEach(async () => server?.close());

  const start = async (database: boolean, jobQueue: boolean) => {
    const health = createHealthService({
      database: {
        ping: async () => {
          if (!database) throw new Error('connection refused');
        },
      },
      checks: [
        {
          name: 'jobQueue',
          check: async () => {
            if (!jobQueue) throw new Error('the workers are stopping');
          },
        },
      ],
    });
    server = await startHealthServer({ health, host: '127.0.0.1', port: 0, logger: silent });
    return server.url;
  };

  it('answers live, and ready with each check, as the web app does', async () => {
    const url = await start(true, true);
    const live = await fetch(`${url}/api/health/live`);
    expect(live.status).toBe(200);
    expect(await live.json()).toEqual({ status: 'ok' });
    expect(live.headers.get('cache-control')).toBe('no-store');
    const ready = await fetch(`${url}/api/health/ready`);
    expect(ready.status).toBe(200);
    expect(await ready.json()).toEqual({ status: 'ready', checks: { database: 'ok', jobQueue: 'ok' } });
  });

  it.each([
    [false, true, 'Not ready: database failed', { database: 'failed', jobQueue: 'ok' }],
    [true, false, 'Not ready: jobQueue failed', { database: 'ok', jobQueue: 'failed' }],
  ])('is not ready (503) when a check fails (database %s, job queue %s), and still live', async (database, jobQueue, message, checks) => {
    const url = await start(database, jobQueue);
    const res = await fetch(`${url}/api/health/ready`);
    expect(res.status).toBe(503);
    // The cause stays in the log: the answer names the check only.
    expect(await res.json()).toEqual({ status: 'unavailable', error: 'Service Unavailable', message, checks });
    expect((await fetch(`${url}/api/health/live`)).status).toBe(200);
  });

  it('answers nothing else', async () => {
    const url = await start(true, true);
    expect((await fetch(`${url}/`)).status).toBe(404);
    expect((await fetch(`${url}/api/agents`)).status).toBe(404);
    expect((await fetch(`${url}/api/health/ready`, { method: 'POST' })).status).toBe(405);
    const head = await fetch(`${url}/api/health/live`, { method: 'HEAD' });
    expect(head.status).toBe(200);
    expect(await head.text()).toBe('');
  });
});
