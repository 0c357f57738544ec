import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { defaultAgentConfig, findTemplate } from '../../../contracts/agents.ts';
import type { TChannelList, TCreatedChannel } from '../../../contracts/channels.ts';
import { and, eq } from 'drizzle-orm';
import pino from 'pino';
import { agentRuns, agents } from '../../db/schema.ts';
import { createTestApp, type TestApp } from '../../test/test-app.ts';
import { until } from '../../test/until.ts';
import { scheduleAgents, scheduleOf } from '../../test/agent-schedules.ts';
import { createDispatcher } from './dispatcher.ts';
import { finishRuns, type RunOutcome } from './runtime.repo.ts';

// Issue 29 item 3: on PostgreSQL, deleting a channel (which takes it out of every agent naming it)
// while a batch of runs finished (which stamps each agent's last run) deadlocked: each statement
// locked many agent rows in an order of its own, PostgreSQL aborted one, and the delete answered
// 500 or the batch fell back to recording its runs one by one. Both now lock agents in id order
// (docs/decisions/0063).
//
// The race is made to happen every round, with no timing: a third transaction holds one agent
// in the middle, so the delete locks the agents before it and waits. Since decision 0103 the
// batch neither locks nor writes agents (an agent's last run is in agent_schedules), so it must
// be recorded in full while the agent is held, and the delete go through once it is let go.
// (Before 0103 this test saw both waiting on agents and checked that their common id order let
// both finish; that wait is gone, so the test now asserts the batch does not wait at all.)

const onPostgres = process.env.TEST_DATABASE === 'postgres';
const OWNER = 'row-locks@example.com';
const AGENTS = 150;
const ROUNDS = 6;
const template = findTemplate('crypto-market-monitor')!;

describe.runIf(onPostgres)('statements that change many agents, side by side on PostgreSQL', () => {
  let t: TestApp;
  /** Holds an agent's row in its transaction. */
  let blocker: pg.Client;
  /** Watches the others (outside any transaction: within one, pg_stat_activity is a snapshot). */
  let observer: pg.Client;
  let cookie: string;
  let agentIds: string[];
  let channelIds: string[];

  beforeAll(async () => {
    t = await createTestApp({ env: { ADMIN_EMAILS: OWNER } });
    const url = t.config.database.kind === 'postgres' ? t.config.database.url : '';
    blocker = new pg.Client({ connectionString: url, application_name: 'row-locks-blocker' });
    observer = new pg.Client({ connectionString: url, application_name: 'row-locks-observer' });
    await blocker.connect();
    await observer.connect();
    cookie = await t.signIn(OWNER, 'Owner');
    const ownerId = (await t.request({ url: '/api/auth/me', cookie })).json<{ user: { id: string } }>().user.id;
    for (let i = 0; i < ROUNDS; i++) {
      const res = await t.request({ method: 'POST', url: '/api/channels', cookie, payload: { kind: 'slack', name: `Desk ${i}`, url: 'https://93.184.216.34/hooks/unused' } });
      if (res.statusCode !== 201) throw new Error(`channel: ${res.statusCode} ${res.body}`);
    }
    channelIds = (await t.request({ url: '/api/channels', cookie })).json<TChannelList>().channels.map((c: Pick<TCreatedChannel, 'id'>) => c.id);
    // Many real-time agents naming every channel, inserted in one go (their ids are random, so
    // the table's order is not the ids' order).
    const base = defaultAgentConfig(template);
    const config = { ...base, schedule: { ...base.schedule, frequency: 'realtime' as const }, notifications: { ...base.notifications, channels: channelIds } };
    const rows = await t.database.db
      .insert(agents)
      .values(Array.from({ length: AGENTS }, (_, i) => ({ ownerId, templateId: template.id, name: `Coins ${i}`, status: 'paused' as const, config })))
      .returning({ id: agents.id });
    agentIds = rows.map((r) => r.id);
  }, 120_000);

  afterAll(async () => {
    await blocker?.end();
    await observer?.end();
    await t?.close();
  });

  /** The app's statements on agents that wait for a lock (the job queue's own are not counted). */
  const lockWaiters = async () =>
    Number(
      (await observer.query<{ n: string }>(`select count(*) as n from pg_stat_activity where datname = current_database() and wait_event_type = 'Lock' and query like '%"agents"%'`)).rows[0]!.n,
    );

  it('deletes every channel while batches of runs finish, each answered and recorded in full', async () => {
    const middle = [...agentIds].sort()[Math.floor(AGENTS / 2)]!;
    let raced = 0;
    for (const channelId of channelIds) {
      const now = new Date();
      const runs = await t.database.db
        .insert(agentRuns)
        .values(agentIds.map((agentId) => ({ agentId, status: 'running' as const, startTime: now })))
        .returning({ id: agentRuns.id });
      const outcomes: RunOutcome[] = runs.map((r) => ({ runId: r.id, status: 'success', result: null, prices: {}, error: null, endTime: new Date(), performance: '+0.50%' }));

      await blocker.query('begin');
      await blocker.query('select id from agents where id = $1 for update', [middle]);
      const batch = finishRuns(t.database.db, outcomes).then(
        (finished) => ({ finished }),
        (err: unknown) => ({ err }),
      );
      const removal = t.request({ method: 'DELETE', url: `/api/channels/${channelId}`, cookie });
      let removed = false;
      void removal.then(() => (removed = true));
      // The batch is recorded while the agent is still held; the delete is stopped on it.
      await batch;
      const held = await until(async () => ({ removed, waiting: await lockWaiters() }), (r) => r.removed || r.waiting >= 1, 30_000);
      if (!held.removed) raced += 1;
      await blocker.query('commit');

      const [recorded, answer] = await Promise.all([batch, removal]);
      expect(answer.statusCode, answer.body).toBe(204);
      expect('err' in recorded ? String(recorded.err) : null).toBeNull();
      expect('finished' in recorded ? recorded.finished.size : 0).toBe(AGENTS);
    }
    expect(raced).toBe(channelIds.length);

    // Every channel is gone from every agent, and every agent has its last run.
    const saved = await t.database.db.select({ id: agents.id, config: agents.config }).from(agents);
    expect(saved.every((a) => (a.config.notifications.channels ?? []).length === 0)).toBe(true);
    for (const agent of saved) expect((await scheduleOf(t.database.db, agent.id)).lastRunAt).not.toBeNull();
  }, 120_000);

  it('dispatches an agent whose row a person’s edit holds, and skips (never waits for) one being deleted', async () => {
    // Decision 0103: the claim locks the schedule rows, never the agents (their runs reference
    // the schedule row). An edit holding the agent's row does not stop its dispatch; a deletion
    // in progress holds the schedule row (deleted by the cascade), and SKIP LOCKED passes it by.
    const [edited, deleted, free] = [...agentIds].sort();
    const slot = new Date('2030-01-01T00:00:00Z');
    await scheduleAgents(t.database.db, [edited!, deleted!, free!], slot, 'running');
    const dispatcher = createDispatcher({ db: t.database.db, jobs: { enqueueRunBatches: async () => {} }, logger: pino({ level: 'silent' }), now: () => slot });
    const deleter = new pg.Client({ connectionString: t.config.database.kind === 'postgres' ? t.config.database.url : '' });
    await deleter.connect();
    try {
      await blocker.query('begin');
      await blocker.query('select id from agents where id = $1 for no key update', [edited]);
      await deleter.query('begin');
      await deleter.query('delete from agents where id = $1', [deleted]);
      expect(await dispatcher.dispatchDue()).toBe(2);
      await deleter.query('rollback');
      await blocker.query('commit');
      const queued = await t.database.db.select({ agentId: agentRuns.agentId }).from(agentRuns).where(and(eq(agentRuns.status, 'queued'), eq(agentRuns.scheduledFor, slot)));
      expect(queued.map((r) => r.agentId).sort()).toEqual([edited, free].sort());
      // Once let go, the skipped agent is dispatched for its slot.
      expect(await dispatcher.dispatchDue()).toBe(1);
    } finally {
      await deleter.end();
      await scheduleAgents(t.database.db, [edited!, deleted!, free!], null, 'paused');
    }
  });
});
