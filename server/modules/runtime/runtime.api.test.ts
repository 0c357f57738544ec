import { and, asc, eq, isNotNull, sql } from 'drizzle-orm';
import pino from 'pino';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { defaultAgentConfig, findTemplate, type TAgent, type TAgentConfig, type TAgentRun } from '../../../contracts/agents.ts';
import type { TNotificationList } from '../../../contracts/notifications.ts';
import type { TRunResult } from '../../../contracts/market.ts';
import { agentRuns, agents } from '../../db/schema.ts';
import { createTestApp, type TestApp } from '../../test/test-app.ts';
import { until } from '../../test/until.ts';
import { createDispatcher } from './dispatcher.ts';
import { startRuntime } from './runtime.ts';
import { INVALID_PARAMETERS_ERROR } from './run-plan.ts';
import { startRun } from './runtime.repo.ts';
import { startWorkers, type Workers } from './workers.ts';
import { scheduleAgents, scheduleOf } from '../../test/agent-schedules.ts';

const STOCK = 'stock-market-scanner';
const CRYPTO = 'crypto-market-monitor';
const MINUTE = 60_000;
const silent = pino({ level: 'silent' });

function configOf(templateId: string, changes: { schedule?: Partial<TAgentConfig['schedule']>; parameters?: Record<string, unknown>; notifications?: Partial<TAgentConfig['notifications']> } = {}): TAgentConfig {
  const template = findTemplate(templateId)!;
  const { parameters } = defaultAgentConfig(template);
  return {
    schedule: { ...template.defaultConfig.schedule, timeZone: 'UTC', ...changes.schedule },
    notifications: { ...template.defaultConfig.notifications, ...changes.notifications },
    parameters: { ...parameters, ...changes.parameters } as TAgentConfig['parameters'],
  };
}

/** Every minute, all day, every day: due at each minute boundary. */
const EVERY_MINUTE: Omit<TAgentConfig['schedule'], 'timeZone'> = {
  frequency: 'realtime',
  daysActive: ['Monday', 'Tuesday', 'Wednesday', 'Thursday', 'Friday', 'Saturday', 'Sunday'],
  activeHours: { start: '00:00', end: '23:59' },
};


describe('agents runtime', () => {
  let t: TestApp;
  let admin: string;
  let workers: Workers | null = null;

  beforeAll(async () => {
    // No lookahead here: these tests move the app's clock ahead of the database's, and a job held
    // until a slot in that future would wait in real time. The lookahead has its own test.
    // The write limit is raised for the 300 parallel presses of Run now below.
    t = await createTestApp({
      env: { ADMIN_EMAILS: 'admin@example.com', MARKET_DATA: 'simulated', DISPATCH_INTERVAL_MS: '50', RUN_LEASE_SECONDS: '2', DISPATCH_LOOKAHEAD_MS: '0', WRITE_RATE_LIMIT: '1000' },
    });
    admin = await t.signIn('admin@example.com', 'Admin');
  });
  afterEach(async () => {
    await workers?.stop();
    workers = null;
  });
  afterAll(async () => t.close());

  const create = async (templateId: string, config: TAgentConfig, name = `${templateId} agent`): Promise<TAgent> => {
    const res = await t.request({ method: 'POST', url: '/api/agents', cookie: admin, payload: { templateId, name, config } });
    expect(res.statusCode).toBe(201);
    return res.json();
  };
  const setStatus = async (id: string, status: 'running' | 'paused'): Promise<TAgent> => {
    const res = await t.request({ method: 'PATCH', url: `/api/agents/${id}`, cookie: admin, payload: { status } });
    expect(res.statusCode).toBe(200);
    return res.json();
  };
  const runsOf = async (id: string): Promise<TAgentRun[]> => (await t.request({ url: `/api/agents/${id}/runs`, cookie: admin })).json();
  const start = async () => {
    workers = await startWorkers({ config: t.config, database: t.database, jobs: t.jobs, logger: silent, now: t.now });
    return workers;
  };

  it('a resumed agent runs on its schedule, records the result, and stops when paused', async () => {
    const agent = await create(CRYPTO, configOf(CRYPTO, { schedule: EVERY_MINUTE }));
    const resumed = await setStatus(agent.id, 'running');
    const firstSlot = new Date(resumed.nextRunAt!);
    await start();
    expect(await runsOf(agent.id)).toEqual([]); // not due yet

    t.advanceTime(firstSlot.getTime() - t.now().getTime() + 100);
    const [first] = await until(() => runsOf(agent.id), (runs) => runs.length === 1 && runs[0]!.status === 'success');
    expect(first!.scheduledFor).toBe(firstSlot.toISOString());
    const result = first!.result as TRunResult;
    expect(result.simulated).toBe(true);
    expect(result.markets.map((m) => m.ok && m.source)).toEqual(['binance', 'coinbase', 'kraken']);
    for (const market of result.markets) {
      if (!market.ok) throw new Error(market.error);
      expect(market.simulated).toBe(true);
      expect(market.price).toBeGreaterThan(0);
      expect(Date.parse(market.candleTime)).toBeLessThanOrEqual(t.now().getTime());
      expect(market.rules.map((r) => r.name)).toEqual(['Price change', 'Volatility spike', 'Volume surge', 'Whale transaction']);
      expect(market.rules.at(-1)).toMatchObject({ status: 'not configured', fired: false });
      expect(market.chart.candles.length).toBeGreaterThan(10);
    }
    const afterFirst: TAgent = (await t.request({ url: `/api/agents/${agent.id}`, cookie: admin })).json();
    expect(afterFirst.lastRun).not.toBeNull();
    expect(afterFirst.nextRunAt).toBe(new Date(firstSlot.getTime() + MINUTE).toISOString());

    t.advanceTime(MINUTE);
    const two = await until(() => runsOf(agent.id), (runs) => runs.length === 2 && runs[0]!.status === 'success');
    expect(two[0]!.scheduledFor).toBe(new Date(firstSlot.getTime() + MINUTE).toISOString());
    const performance = (two[0]!.result as TRunResult).performance;
    expect(performance).toMatch(/^[+-]?\d+\.\d%$/);
    expect((await t.request({ url: `/api/agents/${agent.id}`, cookie: admin })).json().performance).toBe(performance);

    await setStatus(agent.id, 'paused');
    t.advanceTime(3 * MINUTE);
    await new Promise((r) => setTimeout(r, 500)); // several dispatch ticks
    expect(await runsOf(agent.id)).toHaveLength(2);
  });

  it('run now executes at once, even for a paused agent', async () => {
    const agent = await create(STOCK, configOf(STOCK, { parameters: { symbols: 'AAPL, MSFT', indicators: ['SMA', 'RSI', 'Bollinger Bands'] } }));
    await start();
    const res = await t.request({ method: 'POST', url: `/api/agents/${agent.id}/run`, cookie: admin });
    expect(res.statusCode).toBe(202);
    const [run] = await until(() => runsOf(agent.id), (runs) => runs[0]?.status === 'success');
    expect(run!.scheduledFor).toBeNull();
    const result = run!.result as TRunResult;
    expect(result.markets.map((m) => m.symbol)).toEqual(['AAPL', 'MSFT']);
    const aapl = result.markets[0]!;
    if (!aapl.ok) throw new Error(aapl.error);
    expect(Object.keys(aapl.indicators)).toEqual(expect.arrayContaining(['SMA 20', 'RSI 14', 'Bollinger upper']));
    // jsonb keeps keys in its own order.
    expect(Object.keys(aapl.chart.overlays).sort()).toEqual(['Bollinger lower', 'Bollinger middle', 'Bollinger upper', 'SMA 20']);
    expect(aapl.rules.map((r) => r.name)).toEqual(['RSI extreme', 'Moving average crossover', 'Volume spike']);
  });

  it('a configuration that no longer fits its template fails the run and says why, never running on defaults', async () => {
    const agent = await create(STOCK, configOf(STOCK));
    // As stored before a parameter was renamed (the API refuses such a config, so write it as is):
    // the old runtime read the missing rsiThreshold as 70 and the text period as 20, and ran.
    const { rsiThreshold, ...parameters } = agent.config.parameters;
    const stale = { ...agent.config, parameters: { ...parameters, rsiLimit: rsiThreshold!, movingAveragePeriod: 'twenty' } };
    await t.database.db.update(agents).set({ config: stale }).where(eq(agents.id, agent.id));
    await start();
    expect((await t.request({ method: 'POST', url: `/api/agents/${agent.id}/run`, cookie: admin })).statusCode).toBe(202);
    const [run] = await until(() => runsOf(agent.id), (runs) => runs[0]?.status === 'success' || runs[0]?.status === 'failure');
    expect(run).toMatchObject({ status: 'failure', result: null });
    expect(run!.error).toMatch(new RegExp(`^${INVALID_PARAMETERS_ERROR} \\(.+\\)\\.$`));
    // One problem per parameter, each naming it as the screen does; the stored key order is the
    // database's own (jsonb sorts keys).
    for (const problem of ['RSI threshold is required', "This template has no parameter 'rsiLimit'", 'Moving average period must be a number']) expect(run!.error).toContain(problem);
  });

  it('run now, pressed 300 times at once: one run (202), every other press 409; the next is accepted once it has finished', async () => {
    const agent = await create(CRYPTO, configOf(CRYPTO, { parameters: { exchanges: ['Binance'] } }));
    const runNow = () => t.request({ method: 'POST', url: `/api/agents/${agent.id}/run`, cookie: admin });
    const answers = await Promise.all(Array.from({ length: 300 }, runNow));
    const accepted = answers.filter((res) => res.statusCode === 202);
    expect(accepted).toHaveLength(1);
    const refused = answers.filter((res) => res.statusCode !== 202);
    expect(refused).toHaveLength(299);
    for (const res of refused) {
      expect(res.statusCode).toBe(409);
      expect(res.json()).toEqual({ error: 'Conflict', message: 'A run is already in progress' });
    }
    const { runId } = accepted[0]!.json() as { runId: number };
    expect(await runsOf(agent.id)).toEqual([expect.objectContaining({ id: runId, status: 'queued', scheduledFor: null })]);
    const jobs = await t.database.db.execute(sql`select count(*)::int as n from pgboss.job where name = 'agent-run' and (data->>'runId')::bigint = ${runId}`);
    expect((jobs as unknown as { rows: Array<{ n: number }> }).rows[0]!.n).toBe(1);

    // While it runs, too.
    await t.database.db.update(agentRuns).set({ status: 'running' }).where(eq(agentRuns.id, runId));
    expect((await runNow()).statusCode).toBe(409);
    await t.database.db.update(agentRuns).set({ status: 'queued' }).where(eq(agentRuns.id, runId));

    await start();
    await until(() => runsOf(agent.id), (runs) => runs.length === 1 && runs[0]!.status === 'success');
    const next = await runNow();
    expect(next.statusCode).toBe(202);
    expect(next.json().runId).not.toBe(runId);
    const runs = await until(() => runsOf(agent.id), (r) => r.length === 2 && r[0]!.status === 'success');
    expect(runs.map((r) => r.scheduledFor)).toEqual([null, null]);
  });

  it('two dispatchers claim every due slot exactly once', async () => {
    const executed = new Set<number>();
    const duplicates: number[] = [];
    const created = await Promise.all(Array.from({ length: 12 }, (_, i) => create(CRYPTO, configOf(CRYPTO, { schedule: EVERY_MINUTE }), `twin ${i}`)));
    const resumed = await Promise.all(created.map((a) => setStatus(a.id, 'running')));
    const slot = new Date(resumed[0]!.nextRunAt!);
    const at = new Date(slot.getTime() + 1000);
    const first = createDispatcher({ db: t.database.db, jobs: t.jobs, logger: silent, now: () => at });
    const second = createDispatcher({ db: t.database.db, jobs: t.jobs, logger: silent, now: () => at });
    const queued = await Promise.all([first.dispatchDue(), second.dispatchDue(), first.dispatchDue(), second.dispatchDue()]);
    const ids = new Set(created.map((a) => a.id));
    const rows = (await t.database.db.select().from(agentRuns).where(isNotNull(agentRuns.scheduledFor))).filter((r) => ids.has(r.agentId));
    expect(queued.reduce((a, b) => a + b, 0)).toBe(created.length);
    expect(rows).toHaveLength(created.length);
    expect(new Set(rows.map((r) => r.agentId)).size).toBe(created.length);
    // Two worker loops on the same queue: each run still executes once.
    const a = await startRuntime({ db: t.database.db, jobs: t.jobs, executor: { executeBatch: countingExecute }, deliverEmail: async () => {}, deliverToChannel: async () => {}, config: t.config.runtime, logger: silent, now: () => at });
    const b = await startRuntime({ db: t.database.db, jobs: t.jobs, executor: { executeBatch: countingExecute }, deliverEmail: async () => {}, deliverToChannel: async () => {}, config: t.config.runtime, logger: silent, now: () => at });
    await until(async () => executed.size, (n) => n >= created.length);
    await new Promise((r) => setTimeout(r, 300));
    await a.stop();
    await b.stop();
    expect(duplicates).toEqual([]);
    for (const agent of created) await setStatus(agent.id, 'paused');

    async function countingExecute(runIds: readonly number[]) {
      for (const runId of runIds) {
        if (executed.has(runId)) duplicates.push(runId);
        executed.add(runId);
      }
      return runIds.length;
    }
  });

  it('a run left running by a dead worker is failed as interrupted and the next slot runs', async () => {
    const agent = await create(CRYPTO, configOf(CRYPTO, { schedule: EVERY_MINUTE, parameters: { exchanges: ['Kraken'] } }));
    const resumed = await setStatus(agent.id, 'running');
    const slot = new Date(resumed.nextRunAt!);
    t.advanceTime(slot.getTime() - t.now().getTime() + 100);
    // A worker takes the run, then dies without a word (its lease is never renewed).
    const dispatcher = createDispatcher({ db: t.database.db, jobs: { enqueueRunBatches: async () => {} }, logger: silent, now: t.now });
    expect(await dispatcher.dispatchDue()).toBe(1);
    const [queued] = await runsOf(agent.id);
    expect(await startRun(t.database.db, queued!.id, t.now(), new Date(t.now().getTime() + 2000))).not.toBeNull();

    await start();
    t.advanceTime(MINUTE);
    // The next slot can finish before the dispatch tick after it fails the dead worker's run: wait for both.
    const runs = await until(() => runsOf(agent.id), (r) => r.length === 2 && r[0]!.status === 'success' && r[1]!.status !== 'running');
    expect(runs[1]).toMatchObject({ id: queued!.id, status: 'failure', error: 'interrupted' });
    expect(runs[0]!.scheduledFor).toBe(new Date(slot.getTime() + MINUTE).toISOString());
    await setStatus(agent.id, 'paused');
  });

  it('gives exactly one run per active slot across daylight-saving days in New York', async () => {
    const hourly = await create(STOCK, configOf(STOCK, { schedule: { frequency: 'hourly', daysActive: [...EVERY_MINUTE.daysActive], activeHours: { start: '00:00', end: '23:59' }, timeZone: 'America/New_York' } }), 'dst hourly');
    const minutely = await create(STOCK, configOf(STOCK, { schedule: { ...EVERY_MINUTE, timeZone: 'America/New_York' } }), 'dst minutely');
    const local = new Intl.DateTimeFormat('en-US', { timeZone: 'America/New_York', hour: '2-digit', minute: '2-digit', hourCycle: 'h23' });
    // The every-minute agent is walked minute by minute through the first five hours of each day,
    // which hold the change (02:00 local); the hourly one through the whole day, from each of its
    // slots to the next. (Walking every minute of both days took 2,880 dispatches: 10 s on a quiet
    // machine, past the test's limit on a loaded one.)
    const MINUTE_WALK_MS = 5 * 60 * MINUTE;
    const nextRunOf = async (agentId: string) => (await scheduleOf(t.database.db, agentId)).nextRunAt;

    for (const [day, start, hours, changed] of [
      // Spring forward: 02:00-02:59 does not exist; fall back: 01:00-01:59 happens twice.
      ['2026-03-08', '2026-03-08T05:00:00Z', 23, (times: string[]) => expect(times.some((time) => time.startsWith('02:'))).toBe(false)],
      ['2026-11-01', '2026-11-01T04:00:00Z', 25, (times: string[]) => expect(times.filter((time) => time === '01:30')).toHaveLength(2)],
    ] as const) {
      let clock = new Date(Date.parse(start) - MINUTE);
      const dispatcher = createDispatcher({ db: t.database.db, jobs: { enqueueRunBatches: async () => {} }, logger: silent, now: () => clock });
      // Resume just before local midnight.
      const { computeNextRunAt } = await import('../agents/schedule.ts');
      for (const agent of [hourly, minutely]) {
        const config = (await t.database.db.select().from(agents).where(eq(agents.id, agent.id)))[0]!.config;
        await scheduleAgents(t.database.db, agent.id, computeNextRunAt(config.schedule, clock), 'running');
      }
      const walkEnd = Date.parse(start) + MINUTE_WALK_MS;
      const end = Date.parse(start) + hours * 60 * MINUTE;
      // Every minute (plus a few seconds of lag) through the change...
      for (let at = Date.parse(start); at < walkEnd; at += MINUTE) {
        clock = new Date(at + 3000);
        await dispatcher.dispatchDue();
      }
      // ...then the hourly agent alone, from each slot to the next, to the end of the day.
      await scheduleAgents(t.database.db, minutely.id, null, 'paused');
      for (let next = await nextRunOf(hourly.id), steps = 0; next && next.getTime() < end; next = await nextRunOf(hourly.id), steps++) {
        expect(steps, `${day}: the hourly agent's next run moves on`).toBeLessThan(hours);
        clock = new Date(next.getTime() + 3000);
        await dispatcher.dispatchDue();
      }
      const slotsOf = async (agentId: string, until: number) =>
        (await t.database.db.select().from(agentRuns).where(and(eq(agentRuns.agentId, agentId), isNotNull(agentRuns.scheduledFor))).orderBy(asc(agentRuns.scheduledFor)))
          .map((r) => r.scheduledFor!)
          .filter((s) => s.getTime() >= Date.parse(start) && s.getTime() < until);

      const hourSlots = await slotsOf(hourly.id, end);
      expect(hourSlots, day).toHaveLength(hours);
      expect(new Set(hourSlots.map((s) => s.getTime())).size, day).toBe(hours);
      // One hour apart in real time, on the hour in New York.
      hourSlots.forEach((s, i) => i > 0 && expect(s.getTime() - hourSlots[i - 1]!.getTime()).toBe(60 * MINUTE));
      expect(hourSlots.every((s) => local.format(s).endsWith(':00'))).toBe(true);

      // One run for every real minute through the change, none twice.
      const minuteSlots = await slotsOf(minutely.id, walkEnd);
      expect(minuteSlots, day).toHaveLength(MINUTE_WALK_MS / MINUTE);
      expect(new Set(minuteSlots.map((s) => s.getTime())).size).toBe(MINUTE_WALK_MS / MINUTE);
      minuteSlots.forEach((s, i) => i > 0 && expect(s.getTime() - minuteSlots[i - 1]!.getTime()).toBe(MINUTE));
      changed(minuteSlots.map((s) => local.format(s)));
    }
    await setStatus(hourly.id, 'paused');
  }, 60_000);

  it('queues a slot ahead of time but starts it no earlier than the slot; pausing drops it', async () => {
    const agent = await create(CRYPTO, configOf(CRYPTO, { schedule: EVERY_MINUTE, parameters: { exchanges: ['Binance'] } }));
    await setStatus(agent.id, 'running');
    // Real time here (the job queue holds jobs by the database's clock): a slot 1.5 s away.
    const slot = new Date(Math.ceil((Date.now() + 1_500) / 1000) * 1000);
    await scheduleAgents(t.database.db, agent.id, slot);
    const ahead = createDispatcher({ db: t.database.db, jobs: t.jobs, logger: silent, lookaheadMs: 5_000 });
    expect(await ahead.dispatchDue()).toBe(1);
    const [queued] = await runsOf(agent.id);
    expect(queued).toMatchObject({ status: 'queued', scheduledFor: slot.toISOString() });
    // The next slot is the first minute boundary after the queued one.
    expect((await t.request({ url: `/api/agents/${agent.id}`, cookie: admin })).json().nextRunAt).toBe(new Date(Math.floor(slot.getTime() / MINUTE + 1) * MINUTE).toISOString());

    workers = await startWorkers({ config: t.config, database: t.database, jobs: t.jobs, logger: silent });
    const [run] = await until(() => runsOf(agent.id), (runs) => runs[0]?.status === 'success');
    expect(Date.parse(run!.startTime!)).toBeGreaterThanOrEqual(slot.getTime());

    // A slot queued ahead and then paused never runs.
    const next = new Date(Math.ceil((Date.now() + 3_000) / 1000) * 1000);
    await scheduleAgents(t.database.db, agent.id, next);
    expect(await ahead.dispatchDue()).toBe(1);
    expect((await runsOf(agent.id))[0]).toMatchObject({ status: 'queued', scheduledFor: next.toISOString() });
    await setStatus(agent.id, 'paused');
    expect(await runsOf(agent.id)).toHaveLength(1);
  });

  it('alerts once per event: a firing threshold notifies once until it clears', async () => {
    // priceChange above 0%: fires on any move. Simulated prices move every candle.
    const always = { thresholds: [{ type: 'priceChange' as const, value: 0, message: 'Any move' }], email: false, inApp: true };
    const agent = await create(CRYPTO, configOf(CRYPTO, { parameters: { exchanges: ['Binance'] }, notifications: always }));
    await start();
    const runNow = async (n: number) => {
      await t.request({ method: 'POST', url: `/api/agents/${agent.id}/run`, cookie: admin });
      return until(() => runsOf(agent.id), (runs) => runs.length === n && runs.every((r) => r.status === 'success'));
    };
    const notificationsFor = async () =>
      ((await t.request({ url: '/api/notifications?limit=100', cookie: admin })).json() as TNotificationList).notifications.filter((n) => n.agentId === agent.id);

    await runNow(1);
    const first = await notificationsFor();
    expect(first).toHaveLength(1);
    expect(first[0]).toMatchObject({ market: 'BTC/USDT on binance', thresholdType: 'priceChange', emailStatus: 'none', readAt: null });
    expect(first[0]!.message).toContain('Any move (BTC/USDT on binance:');

    await runNow(2);
    expect(await notificationsFor()).toHaveLength(1); // still firing: no second alert

    // The condition clears (an unreachable threshold), then fires again: a new event.
    const patch = (value: number) =>
      t.request({ method: 'PATCH', url: `/api/agents/${agent.id}`, cookie: admin, payload: { config: configOf(CRYPTO, { parameters: { exchanges: ['Binance'] }, notifications: { ...always, thresholds: [{ type: 'priceChange', value, message: 'Any move' }] } }) } });
    expect((await patch(10_000)).statusCode).toBe(200);
    await runNow(3);
    expect(await notificationsFor()).toHaveLength(1);
    expect((await patch(0)).statusCode).toBe(200);
    await runNow(4);
    expect(await notificationsFor()).toHaveLength(2);
  });
});
