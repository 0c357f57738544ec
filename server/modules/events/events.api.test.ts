import { sql } from 'drizzle-orm';
import pino from 'pino';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { defaultAgentConfig, findTemplate } from '../../../contracts/agents.ts';
import type { TLiveEvent } from '../../../contracts/events.ts';
import { openDatabase } from '../../db/client.ts';
import { inAppAlert } from '../../test/agent-fixtures.ts';
import { listenLocally, openEvents, type EventStreamClient, type ReceivedEvent } from '../../test/event-stream-client.ts';
import { createTestApp, type TestApp } from '../../test/test-app.ts';
import { startJobQueue } from '../runtime/job-queue.ts';
import { startWorkers } from '../runtime/workers.ts';
import { REPLAY_MAX_EVENTS } from './event-hub.ts';
import { LISTENER_APPLICATION_NAME } from './pg-listener.ts';

const silent = pino({ level: 'silent' });
const onPostgres = process.env.TEST_DATABASE === 'postgres';
const OWNER = 'owner@example.com';
const OTHER = 'other@example.com';
const template = findTemplate('stock-market-scanner')!;

const isEvent =
  (type: string, fields: Record<string, unknown> = {}) =>
  (e: ReceivedEvent) =>
    e.event === type && Object.entries(fields).every(([k, v]) => (e.data as Record<string, unknown>)[k] === v);

describe('GET /api/events', () => {
  let t: TestApp;
  let base: string;
  const cookies = { owner: '', other: '' };
  const ids = { owner: '', other: '' };
  const open: EventStreamClient[] = [];
  const stream = async (cookie: string, lastEventId?: string) => {
    const s = await openEvents(base, cookie, lastEventId);
    open.push(s);
    return s;
  };
  const newAgent = async (cookie: string) => {
    const res = await t.request({ method: 'POST', url: '/api/agents', cookie, payload: { templateId: template.id, name: `Live ${Math.random()}`, config: defaultAgentConfig(template) } });
    return res.json<{ id: string; name: string }>();
  };
  const me = async (cookie: string) => (await t.request({ url: '/api/auth/me', cookie })).json<{ user: { id: string } }>().user.id;

  beforeAll(async () => {
    t = await createTestApp({ env: { ADMIN_EMAILS: `${OWNER},${OTHER}`, MARKET_DATA: 'simulated', EVENT_SESSION_CHECK_MS: '100', EVENT_STREAMS_PER_USER: '3' } });
    base = await listenLocally(t.app);
    cookies.owner = await t.signIn(OWNER);
    cookies.other = await t.signIn(OTHER);
    ids.owner = await me(cookies.owner);
    ids.other = await me(cookies.other);
  });
  afterEach(async () => {
    const closing = open.splice(0);
    for (const s of closing) s.close();
    await Promise.all(closing.map((s) => s.closed));
  });
  afterAll(async () => t.close());

  it('streams its owner’s notification and run events, and none of another user’s', async () => {
    const mine = await stream(cookies.owner);
    const theirs = await stream(cookies.other);
    expect(mine.status).toBe(200);
    expect(mine.contentType).toMatch(/^text\/event-stream/);

    const agent = await newAgent(cookies.owner);
    const { runId } = (await t.request({ method: 'POST', url: `/api/agents/${agent.id}/run`, cookie: cookies.owner })).json<{ runId: number }>();
    await mine.next(isEvent('run', { action: 'queued', agentId: agent.id, runId }));
    const notificationId = await inAppAlert(t, { userId: ids.owner, agentId: agent.id, agentName: agent.name, runId });
    await mine.next(isEvent('notification', { action: 'created', notificationId }));
    await t.request({ method: 'POST', url: `/api/notifications/${notificationId}/read`, cookie: cookies.owner });
    await mine.next(isEvent('notification', { action: 'read', notificationId }));

    // The other admin's own event arrives on their stream after the owner's would have.
    const theirAgent = await newAgent(cookies.other);
    await theirs.next(isEvent('agent', { agentId: theirAgent.id }));
    expect(theirs.events.filter((e) => JSON.stringify(e.data).includes(agent.id))).toEqual([]);
    expect(mine.events.filter((e) => JSON.stringify(e.data).includes(theirAgent.id))).toEqual([]);
    for (const e of mine.events) expect(e.id).toMatch(/^[0-9a-f]+-\d+$/);
  });

  it('a run finished by the workers reaches the stream', async () => {
    const workers = await startWorkers({ config: t.config, database: t.database, jobs: t.jobs, logger: silent, now: t.now, notifications: t.app.notifications, events: t.app.events });
    try {
      const mine = await stream(cookies.owner);
      const agent = await newAgent(cookies.owner);
      const { runId } = (await t.request({ method: 'POST', url: `/api/agents/${agent.id}/run`, cookie: cookies.owner })).json<{ runId: number }>();
      await mine.next(isEvent('run', { action: 'finished', agentId: agent.id, runId }));
      await mine.next(isEvent('agent', { agentId: agent.id }));
    } finally {
      await workers.stop();
    }
  });

  it('resumes after Last-Event-ID without losing an event, and answers reset to an id it no longer has', async () => {
    const first = await stream(cookies.owner);
    const a = await newAgent(cookies.owner);
    const seen = await first.next(isEvent('agent', { agentId: a.id }));
    first.close();
    await first.closed;
    // Published while no stream is open.
    const b = await newAgent(cookies.owner);
    const c = await newAgent(cookies.owner);

    const resumed = await stream(cookies.owner, seen.id!);
    await resumed.next(isEvent('agent', { agentId: c.id }));
    // Of this test's agents, b and c, in order, and not a again. (Only these: on PostgreSQL an
    // earlier test's event, published through NOTIFY, may still reach the hub in between.)
    const ours = new Set([a.id, b.id, c.id]);
    expect(resumed.events.map((e) => (e.data as TLiveEvent & { agentId: string }).agentId).filter((id) => ours.has(id))).toEqual([b.id, c.id]);
    expect(resumed.events.some((e) => e.event === 'reset')).toBe(false);
    resumed.close();

    // More events than the replay buffer keeps: the first id is forgotten.
    for (let i = 0; i <= REPLAY_MAX_EVENTS; i++) t.app.events.publish(ids.other, { type: 'agent', agentId: `filler-${i}` });
    const fillerSeen = await stream(cookies.other);
    t.app.events.publish(ids.other, { type: 'agent', agentId: 'marker' });
    // On PostgreSQL each of these 514 events goes out by NOTIFY and comes back to the hub one by
    // one: on a machine as busy as CI's can be, that took more than the usual 10 s.
    await fillerSeen.next(isEvent('agent', { agentId: 'marker' }), 60_000);
    const late = await stream(cookies.owner, seen.id!);
    const reset = await late.next((e) => e.event === 'reset');
    expect(late.events.filter((e) => e.event !== 'reset')).toEqual([]);
    late.close();
    // The reset carries an id to resume from: resuming there is no reset again.
    const after = await stream(cookies.owner, reset.id!);
    const d = await newAgent(cookies.owner);
    await after.next(isEvent('agent', { agentId: d.id }));
    expect(after.events.some((e) => e.event === 'reset')).toBe(false);
    after.close();
    fillerSeen.close();

    for (const bogus of ['not-an-id', 'ffffffff-1', `${seen.id}9999999`]) {
      const s = await stream(cookies.owner, bogus);
      expect(s.status).toBe(200);
      await s.next((e) => e.event === 'reset');
      s.close();
      await s.closed;
    }
  });

  it('ends at sign-out, and for an admin demoted meanwhile', async () => {
    const session = await t.signIn(OWNER);
    const s = await stream(session);
    await t.request({ method: 'POST', url: '/api/auth/logout', cookie: session });
    await s.closed;

    const email = 'demoted@example.com';
    const demoted = await t.signIn(email);
    const users = (await t.request({ url: '/api/users', cookie: cookies.owner })).json<Array<{ id: string; email: string }>>();
    await t.request({ method: 'PATCH', url: `/api/users/${users.find((u) => u.email === email)!.id}`, cookie: cookies.owner, payload: { role: 'admin' } });
    const d = await stream(demoted);
    expect(d.status).toBe(200);
    await t.request({ method: 'PATCH', url: `/api/users/${users.find((u) => u.email === email)!.id}`, cookie: cookies.owner, payload: { role: 'guest' } });
    await d.closed;
    expect((await stream(demoted)).status).toBe(403);
  });

  it('refuses a stream over the per-user cap, and signed-out callers', async () => {
    const session = await t.signIn(OTHER);
    for (let i = 0; i < 3; i++) expect((await stream(session)).status).toBe(200);
    expect((await stream(session)).status).toBe(429);
    expect((await openEvents(base, '')).status).toBe(401);
  });

  it.runIf(onPostgres)('a lost LISTEN connection reconnects and tells the open streams to refetch', async () => {
    const mine = await stream(cookies.owner);
    await t.database.db.execute(sql`select pg_terminate_backend(pid) from pg_stat_activity where application_name = ${LISTENER_APPLICATION_NAME} and datname = current_database()`);
    const reset = await mine.next((e) => e.event === 'reset');
    // Listening again: events flow, and resuming from the reset's id is no reset.
    const agent = await newAgent(cookies.owner);
    await mine.next(isEvent('agent', { agentId: agent.id }));
    mine.close();
    const resumed = await stream(cookies.owner, reset.id!);
    const later = await newAgent(cookies.owner);
    await resumed.next(isEvent('agent', { agentId: later.id }));
    expect(resumed.events.map((e) => e.event)).not.toContain('reset');
  });

  it.runIf(onPostgres)('a run in another worker process reaches a stream here (LISTEN/NOTIFY)', async () => {
    // A second process on the same database: its own connections, job queue and workers, no web app.
    const database = await openDatabase(t.config.database, silent);
    const jobs = await startJobQueue(database, { logger: silent, email: t.config.email, supervise: false });
    const workers = await startWorkers({ config: t.config, database, jobs, logger: silent });
    try {
      const mine = await stream(cookies.owner);
      const agent = await newAgent(cookies.owner);
      const { runId } = (await t.request({ method: 'POST', url: `/api/agents/${agent.id}/run`, cookie: cookies.owner })).json<{ runId: number }>();
      await mine.next(isEvent('run', { action: 'finished', agentId: agent.id, runId }), 20_000);
    } finally {
      await workers.stop();
      await jobs.stop();
      await database.close();
    }
  });
});
