import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loggerOptions } from '../logger.ts';
import { listenLocally, openEvents } from '../../test/event-stream-client.ts';
import { createTestApp, type TestApp } from '../../test/test-app.ts';
import { until } from '../../test/until.ts';

type Line = { level: number; msg: string; reqId?: string; req?: { method?: string; url?: string; remoteAddress?: string; host?: string }; res?: { statusCode: number | null }; responseTime?: number; userId?: string };

describe('the request log: one line per request, at the default level', () => {
  const lines: Line[] = [];
  const logger = pino(loggerOptions('info'), { write: (line: string) => void lines.push(JSON.parse(line) as Line) });
  let t: TestApp;
  let base: string;
  let admin: string;
  let adminId: string;
  beforeAll(async () => {
    t = await createTestApp({ logger });
    base = await listenLocally(t.app);
    admin = await t.signIn('admin@example.com');
    adminId = ((await t.request({ url: '/api/auth/me', cookie: admin })).json() as { user: { id: string } }).user.id;
  });
  afterAll(() => t?.close());

  /** The lines of requests to `url` (path and query). */
  const linesOf = (url: string) => lines.filter((l) => l.req?.url === url);

  it('logs a request once, when it is answered: method, URL, address, status, time, request id and user', async () => {
    const res = await fetch(`${base}/api/agents`, { headers: { cookie: admin } });
    expect(res.status).toBe(200);
    const [line, ...more] = await until(async () => linesOf('/api/agents'), (found) => found.length > 0);
    expect(more).toEqual([]);
    expect(line).toMatchObject({ level: 30, msg: 'request completed', req: { method: 'GET', remoteAddress: '127.0.0.1' }, res: { statusCode: 200 }, userId: adminId });
    expect(line!.reqId).toMatch(/^req-/);
    expect(line!.responseTime).toBeGreaterThanOrEqual(0);
    // Compact: no Host header, and no second line for the same request.
    expect(line!.req).not.toHaveProperty('host');
    expect(lines.filter((l) => l.reqId === line!.reqId)).toHaveLength(1);
    expect(lines.some((l) => l.msg === 'incoming request')).toBe(false);
  });

  it('logs a refused request once too, without a user when nobody is signed in', async () => {
    expect((await fetch(`${base}/api/settings`)).status).toBe(401);
    expect((await fetch(`${base}/api/nope`)).status).toBe(404);
    const [refused] = await until(async () => linesOf('/api/settings'), (found) => found.length === 1);
    expect(refused).toMatchObject({ msg: 'request completed', res: { statusCode: 401 } });
    expect(refused).not.toHaveProperty('userId');
    expect(await until(async () => linesOf('/api/nope'), (found) => found.length === 1)).toMatchObject([{ res: { statusCode: 404 } }]);
  });

  it('keeps secret-looking query values out of the line', async () => {
    await fetch(`${base}/api/nope?code=one-time-c0de&state=st4te&access_token=t0ken&page=2`);
    const [line] = await until(async () => lines.filter((l) => l.req?.url?.startsWith('/api/nope?')), (found) => found.length === 1);
    expect(line!.req!.url).toBe('/api/nope?code=[redacted]&state=[redacted]&access_token=[redacted]&page=2');
    expect(JSON.stringify(lines)).not.toMatch(/one-time-c0de|st4te|t0ken/);
  });

  it('logs a stream the browser leaves once, when it closes, as closed before its answer finished', async () => {
    const stream = await openEvents(base, admin);
    stream.close();
    const [line, ...more] = await until(async () => linesOf('/api/events'), (found) => found.length > 0);
    expect(more).toEqual([]);
    expect(line).toMatchObject({ msg: 'request closed before its answer finished', res: { statusCode: 200 }, userId: adminId });
  });
});
