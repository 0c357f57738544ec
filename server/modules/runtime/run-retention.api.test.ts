import { asc, eq, sql } from 'drizzle-orm';
import pg from 'pg';
import pino from 'pino';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { defaultAgentConfig, findTemplate, type TAgent, type TAgentConfig, type TAgentRun } from '../../../contracts/agents.ts';
import { agentRunMarkets, agentRuns, agents, notifications } from '../../db/schema.ts';
import { memoryLogger } from '../../test/memory-logger.ts';
import { createTestApp, type TestApp } from '../../test/test-app.ts';
import { until } from '../../test/until.ts';
import { createRunRetention } from './run-retention.ts';
import { startWorkers, type Workers } from './workers.ts';
import { scheduleAgents } from '../../test/agent-schedules.ts';

const onPostgres = process.env.TEST_DATABASE === 'postgres';
const DAY = 24 * 60 * 60 * 1000;
const MINUTE = 60_000;
const OWNER = 'retention@example.com';
const CRYPTO = 'crypto-market-monitor';
const silent = pino({ level: 'silent' });
type Status = TAgentRun['status'];

/**
 * Run history that stays small (issue 35 item 2, docs/decisions/0101): finished runs older than
 * RUN_RETENTION_DAYS go in batches, except each agent's RUN_RETENTION_KEEP_LAST latest and its
 * latest success; queued and running runs never go; the runtime goes on meanwhile.
 */
describe('run retention', () => {
  let t: TestApp;
  let cookie: string;
  let ownerId: string;
  const running: Workers[] = [];

  beforeAll(async () => {
    t = await createTestApp({
      env: { ADMIN_EMAILS: OWNER, MARKET_DATA: 'simulated', DISPATCH_INTERVAL_MS: '50', DISPATCH_LOOKAHEAD_MS: '0', RUN_RETENTION_DAYS: '30', RUN_RETENTION_KEEP_LAST: '3' },
    });
    cookie = await t.signIn(OWNER, 'Owner');
    ownerId = (await t.request({ url: '/api/auth/me', cookie })).json<{ user: { id: string } }>().user.id;
  });
  afterEach(async () => {
    for (const w of running.splice(0)) await w.stop();
    await t.database.db.update(agents).set({ status: 'paused' });
    // Each test's runs are its own: ids keep growing with time, as the retention expects.
    await t.database.db.delete(agentRuns);
  });
  afterAll(async () => t?.close());

  const retention = (options: { batchSize?: number; logger?: pino.Logger } = {}) =>
    createRunRetention({ db: t.database.db, logger: options.logger ?? silent, now: t.now, days: t.config.runtime.retentionDays, keepLast: t.config.runtime.retentionKeepLast, batchSize: options.batchSize });

  const newAgent = async (name: string, config?: TAgentConfig): Promise<string> => {
    const template = findTemplate(CRYPTO)!;
    const [row] = await t.database.db.insert(agents).values({ ownerId, templateId: CRYPTO, name, status: 'paused', config: config ?? defaultAgentConfig(template) }).returning({ id: agents.id });
    return row!.id;
  };

  /** Inserts runs oldest first, as time makes them (ids grow with created_at); answers their ids in that order. */
  const insertRuns = async (runs: ReadonlyArray<{ agentId: string; status: Status; daysAgo: number }>): Promise<number[]> => {
    const ids: number[] = [];
    for (const run of [...runs].sort((a, b) => b.daysAgo - a.daysAgo)) {
      const createdAt = new Date(t.now().getTime() - run.daysAgo * DAY);
      const finished = run.status === 'success' || run.status === 'failure';
      const [row] = await t.database.db
        .insert(agentRuns)
        .values({
          agentId: run.agentId,
          status: run.status,
          createdAt,
          startTime: run.status === 'queued' ? null : createdAt,
          endTime: finished ? createdAt : null,
          result: finished ? { markets: [], alerts: [] } : null,
          error: run.status === 'failure' ? 'exchange down' : null,
        })
        .returning({ id: agentRuns.id });
      ids.push(row!.id);
    }
    return ids;
  };
  const remaining = async (agentId: string) =>
    (await t.database.db.select({ id: agentRuns.id, status: agentRuns.status }).from(agentRuns).where(eq(agentRuns.agentId, agentId)).orderBy(asc(agentRuns.id))).map((r) => r.id);

  it("removes finished runs older than the period except each agent's last N and latest success; queued, running and recent runs stay", async () => {
    const failing = await newAgent('Failing for months');
    const paused = await newAgent('Paused long ago');
    const recent = await newAgent('Recent only');
    // Oldest first: 40 days ago is past the 30-day period, 10 days ago inside it.
    const [fSuccess, f1, , , f4, f5] = await insertRuns([
      { agentId: failing, status: 'success', daysAgo: 45 },
      ...[44, 43, 42, 41, 40].map((daysAgo) => ({ agentId: failing, status: 'failure' as const, daysAgo })),
    ]);
    const [pQueued, pRunning, , , , p4, p5, p6] = await insertRuns([
      { agentId: paused, status: 'queued', daysAgo: 39.9 },
      { agentId: paused, status: 'running', daysAgo: 39.8 },
      ...[39.7, 39.6, 39.5, 39.4, 39.3, 39.2].map((daysAgo) => ({ agentId: paused, status: 'success' as const, daysAgo })),
    ]);
    const [fRecent] = await insertRuns([{ agentId: failing, status: 'failure', daysAgo: 10 }]);
    const recentIds = await insertRuns([9, 8, 7, 6, 5].map((daysAgo) => ({ agentId: recent, status: 'success' as const, daysAgo })));
    // A notification of a run that goes keeps its text; only its link to the run is dropped.
    const [note] = await t.database.db
      .insert(notifications)
      .values({ userId: ownerId, agentId: failing, runId: f1!, agentName: 'Failing for months', title: 'BTC/USDT moved', message: 'BTC/USDT rose 5.2% on Binance.' })
      .returning({ id: notifications.id });

    const { logger, lines } = memoryLogger();
    expect(await retention({ logger }).purge()).toBe(6);

    // The failing agent: its 3 latest (one inside the period) and its latest success, months old.
    expect(await remaining(failing)).toEqual([fSuccess, f4, f5, fRecent]);
    // The paused agent: queued and running never go; of the finished, the 3 latest runs stay.
    expect(await remaining(paused)).toEqual([pQueued, pRunning, p4, p5, p6]);
    // Inside the period, every run stays, beyond the last 3 too.
    expect(await remaining(recent)).toEqual(recentIds);
    const [kept] = await t.database.db.select().from(notifications).where(eq(notifications.id, note!.id));
    expect(kept).toMatchObject({ runId: null, agentId: failing, title: 'BTC/USDT moved', message: 'BTC/USDT rose 5.2% on Binance.' });
    expect(lines.find((l) => l.msg === 'removed finished runs older than the retention period')).toMatchObject({ deleted: 6, keepLast: 3 });

    // What a person sees: the failing agent's history is the runs that stayed, newest first.
    const history = (await t.request({ url: `/api/agents/${failing}/runs`, cookie })).json<TAgentRun[]>();
    expect(history.map((r) => r.id)).toEqual([fRecent, f5, f4, fSuccess]);
    // A second pass finds nothing more.
    expect(await retention().purge()).toBe(0);
  });

  it("removes with the runs the stored market results only they read (decision 0102), and keeps one a kept run still reads", async () => {
    const a = await newAgent('Markets A');
    const b = await newAgent('Markets B');
    // a: 5 old successes (its 2 oldest go: it keeps its last 3); b: one old success, its only run (kept).
    const [a1, a2, a3, a4, a5] = await insertRuns([40, 39, 38, 37, 36].map((daysAgo) => ({ agentId: a, status: 'success' as Status, daysAgo })));
    const [b1] = await insertRuns([{ agentId: b, status: 'success', daysAgo: 35 }]);
    const market = (firstRunId: number, lastRunId: number) =>
      t.database.db.insert(agentRunMarkets).values({ market: { ok: true, symbol: 'BTC/USDT' }, firstRunId, lastRunId }).returning({ id: agentRunMarkets.id });
    // onlyRemoved: read by a's two removed runs; shared: by a's second removed run and by b's kept one.
    const [[onlyRemoved], [shared], [keptOnly]] = await Promise.all([market(a1!, a2!), market(a2!, b1!), market(a3!, a5!)]);
    const setMarkets = (id: number, ids: number[]) => t.database.db.update(agentRuns).set({ marketIds: ids }).where(eq(agentRuns.id, id));
    await setMarkets(a1!, [onlyRemoved!.id]);
    await setMarkets(a2!, [onlyRemoved!.id, shared!.id]);
    await setMarkets(b1!, [shared!.id]);
    for (const id of [a3!, a4!, a5!]) await setMarkets(id, [keptOnly!.id]);

    const logger = memoryLogger();
    expect(await retention({ logger: logger.logger }).purge()).toBe(2);
    expect(await remaining(a)).toEqual([a3, a4, a5]);
    const left = (await t.database.db.select({ id: agentRunMarkets.id }).from(agentRunMarkets)).map((r) => r.id).sort((x, y) => x - y);
    expect(left).toEqual([shared!.id, keptOnly!.id].sort((x, y) => x - y));
    expect(logger.lines).toContainEqual(expect.objectContaining({ deleted: 2, marketsDeleted: 1 }));
    await t.database.db.delete(agentRunMarkets);
  });

  it('works through more runs than a batch holds, batch after batch, until every old one is gone', async () => {
    const agentIds = await Promise.all([1, 2, 3].map((i) => newAgent(`Busy ${i}`)));
    // 3 agents x 12 old runs (36, each agent's last 3 kept) and 2 recent runs each.
    await insertRuns(agentIds.flatMap((agentId) => Array.from({ length: 12 }, (_, i) => ({ agentId, status: 'success' as const, daysAgo: 60 - i - agentIds.indexOf(agentId) / 10 }))));
    await insertRuns(agentIds.flatMap((agentId) => [2, 1].map((daysAgo) => ({ agentId, status: 'success' as const, daysAgo }))));
    const { logger, lines } = memoryLogger();

    // The 2 recent runs are each agent's 2 latest; of its old ones, the latest 1 stays too.
    expect(await retention({ batchSize: 4, logger }).purge()).toBe(3 * 11);
    for (const agentId of agentIds) expect(await remaining(agentId)).toHaveLength(3);
    // 42 runs, 4 at a time: the pass stopped at the batch that met a run inside the period.
    const pass = lines.find((l) => l.msg === 'removed finished runs older than the retention period');
    expect(pass).toMatchObject({ deleted: 33 });
    expect(pass!.batches).toBe(10);
  });

  it("keeps the runtime going while it removes: a slot's runs are dispatched, run and recorded during a pass", async () => {
    const template = findTemplate(CRYPTO)!;
    const base = defaultAgentConfig(template);
    const config: TAgentConfig = {
      ...base,
      schedule: { ...base.schedule, frequency: 'realtime', daysActive: ['Monday', 'Tuesday', 'Wednesday', 'Thursday', 'Friday', 'Saturday', 'Sunday'], activeHours: { start: '00:00', end: '23:59' }, timeZone: 'UTC' },
      notifications: { ...base.notifications, email: false, thresholds: [] },
      parameters: { ...base.parameters, exchanges: ['Binance'] },
    };
    const live = await Promise.all([1, 2, 3].map((i) => newAgent(`Live ${i}`, config)));
    // Each live agent has 200 runs past the period: the pass works through 600, 20 at a time.
    for (const agentId of live) {
      await t.database.db.execute(sql`
        insert into ${agentRuns} (agent_id, status, created_at, start_time, end_time, result)
        select ${agentId}::uuid, 'success', ts, ts, ts, '{"markets":[],"alerts":[]}'::jsonb
        from generate_series(1, 200) as g(i), lateral (select ${t.now().toISOString()}::timestamptz - interval '40 days' + g.i * interval '1 minute' as ts) x`);
    }
    running.push(await startWorkers({ config: t.config, database: t.database, jobs: t.jobs, logger: silent, now: t.now }));
    const slot = new Date(Math.ceil((t.now().getTime() + 1) / MINUTE) * MINUTE);

    const pass = retention({ batchSize: 20 }).purge();
    await scheduleAgents(t.database.db, live, slot, 'running');
    t.advanceTime(slot.getTime() - t.now().getTime() + 100);
    for (const agentId of live) {
      const runs = await until(
        async () => (await t.request({ url: `/api/agents/${agentId}/runs?limit=1`, cookie })).json<TAgentRun[]>(),
        (runs) => runs[0]?.scheduledFor === slot.toISOString() && runs[0].status !== 'queued' && runs[0].status !== 'running',
      );
      expect(runs[0]).toMatchObject({ status: 'success', error: null });
    }
    await t.database.db.update(agents).set({ status: 'paused' });
    // Every old run beyond each agent's 3 latest (the new one among them) went: those the pass
    // kept as an agent's latest before its new run was recorded go in the next pass.
    expect((await pass) + (await retention().purge())).toBe(3 * 198);
    for (const agentId of live) expect(await remaining(agentId)).toHaveLength(3);
    expect((await t.request({ url: `/api/agents/${live[0]}`, cookie })).json<TAgent>().lastRun).not.toBeNull();
  });

  it.runIf(onPostgres)('never waits for a run another transaction holds: it skips it, and a later pass removes it', async () => {
    const agentId = await newAgent('Held');
    const ids = await insertRuns(Array.from({ length: 8 }, (_, i) => ({ agentId, status: 'failure' as const, daysAgo: 50 - i })));
    const holder = new pg.Client({ connectionString: t.config.database.kind === 'postgres' ? t.config.database.url : '' });
    await holder.connect();
    try {
      await holder.query('begin');
      // The agent and one of its old runs held, as a finishing batch and a deleting agent hold them.
      await holder.query('select id from agents where id = $1 for no key update', [agentId]);
      await holder.query('select id from agent_runs where id = $1 for update', [ids[1]]);
      expect(await retention().purge()).toBe(4);
      expect(await remaining(agentId)).toEqual([ids[1], ...ids.slice(5)]);
      await holder.query('commit');
      expect(await retention().purge()).toBe(1);
      expect(await remaining(agentId)).toEqual(ids.slice(5));
    } finally {
      await holder.end();
    }
  });
});
