import { and, eq, inArray, isNotNull, sql } from 'drizzle-orm';
import pino from 'pino';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { defaultAgentConfig, findTemplate, type TAgent, type TAgentConfig, type TAgentRun } from '../../../contracts/agents.ts';
import type { TRunResult } from '../../../contracts/market.ts';
import { agentRuns, agents, alertStates, notifications } from '../../db/schema.ts';
import { createTestApp, type TestApp } from '../../test/test-app.ts';
import { until } from '../../test/until.ts';
import { createMarketData } from '../market/market-data.ts';
import { createDispatcher } from './dispatcher.ts';
import { RUN_FAILED_ERROR, createRunExecutor } from './run-executor.ts';
import { INVALID_PARAMETERS_ERROR } from './run-plan.ts';
import { startRuns } from './runtime.repo.ts';
import { startWorkers, type Workers } from './workers.ts';
import { scheduleAgents } from '../../test/agent-schedules.ts';

const CRYPTO = 'crypto-market-monitor';
const MINUTE = 60_000;
const silent = pino({ level: 'silent' });
const NO_JOBS = { enqueueRunBatches: async () => {} };

function everyMinute(exchanges: string[], notifications: Partial<TAgentConfig['notifications']> = {}): TAgentConfig {
  const template = findTemplate(CRYPTO)!;
  const { parameters } = defaultAgentConfig(template);
  return {
    schedule: { frequency: 'realtime', daysActive: ['Monday', 'Tuesday', 'Wednesday', 'Thursday', 'Friday', 'Saturday', 'Sunday'], activeHours: { start: '00:00', end: '23:59' }, timeZone: 'UTC' },
    notifications: { ...template.defaultConfig.notifications, email: false, thresholds: [], ...notifications },
    parameters: { ...parameters, exchanges },
  };
}

/** priceChange above 0%: fires on any move, and simulated prices move every candle. */
const ALWAYS = { thresholds: [{ type: 'priceChange' as const, value: 0, message: 'Any move' }], inApp: true };

/**
 * The batch path (docs/decisions/0052): runs of one slot taken, executed and recorded together,
 * with every guarantee of decision 0007 kept run by run.
 */
describe('agents runtime in batches', () => {
  let t: TestApp;
  let admin: string;
  const running: Workers[] = [];
  const closing: Array<() => Promise<void>> = [];

  beforeAll(async () => {
    t = await createTestApp({
      env: { ADMIN_EMAILS: 'admin@example.com', MARKET_DATA: 'simulated', DISPATCH_INTERVAL_MS: '50', RUN_LEASE_SECONDS: '2', DISPATCH_LOOKAHEAD_MS: '0', WRITE_RATE_LIMIT: '1000' },
    });
    admin = await t.signIn('admin@example.com', 'Admin');
  });
  afterEach(async () => {
    for (const w of running.splice(0)) await w.stop();
    for (const close of closing.splice(0)) await close();
    // Nothing of one test runs in the next.
    await t.database.db.update(agents).set({ status: 'paused' });
  });
  afterAll(async () => t.close());

  const createAll = async (count: number, config: TAgentConfig, name: string): Promise<TAgent[]> => {
    const created: TAgent[] = [];
    for (let i = 0; i < count; i++) {
      const res = await t.request({ method: 'POST', url: '/api/agents', cookie: admin, payload: { templateId: CRYPTO, name: `${name} ${i}`, config } });
      expect(res.statusCode).toBe(201);
      created.push(res.json());
    }
    return created;
  };
  /** The agents running, due at the next minute boundary of the app's clock, which is moved just past it. */
  const dueNow = async (list: readonly TAgent[]): Promise<Date> => {
    const slot = new Date(Math.ceil((t.now().getTime() + 1) / MINUTE) * MINUTE);
    await scheduleAgents(t.database.db, list.map((a) => a.id), slot, 'running');
    t.advanceTime(slot.getTime() - t.now().getTime() + 100);
    return slot;
  };
  const runsOf = async (id: string): Promise<TAgentRun[]> => (await t.request({ url: `/api/agents/${id}/runs`, cookie: admin })).json();
  const scheduledRunIds = async (list: readonly TAgent[], slot: Date) =>
    (
      await t.database.db
        .select({ id: agentRuns.id })
        .from(agentRuns)
        .where(and(inArray(agentRuns.agentId, list.map((a) => a.id)), eq(agentRuns.scheduledFor, slot)))
    ).map((r) => r.id);
  const finished = (runs: TAgentRun[]) => runs.length > 0 && runs.every((r) => r.status === 'success' || r.status === 'failure');
  const startWorker = async () => {
    const workers = await startWorkers({ config: t.config, database: t.database, jobs: t.jobs, logger: silent, now: t.now });
    running.push(workers);
    return workers;
  };
  /** An executor of our own, as a second worker process would have. */
  const executor = () => {
    const marketData = createMarketData(t.config.market, { logger: silent, now: t.now });
    closing.push(() => marketData.close());
    return createRunExecutor({ db: t.database.db, marketData, onChain: null, alerts: t.app.notifications, logger: silent, now: t.now, leaseSeconds: t.config.runtime.leaseSeconds });
  };

  it('queues a slot as batches of runs sharing their candles, at most the batch size each', async () => {
    const binance = await createAll(5, everyMinute(['Binance']), 'batched binance');
    const kraken = await createAll(2, everyMinute(['Kraken']), 'batched kraken');
    const slot = await dueNow([...binance, ...kraken]);
    const dispatcher = createDispatcher({ db: t.database.db, jobs: t.jobs, logger: silent, now: t.now, batchSize: 3 });
    expect(await dispatcher.dispatchDue()).toBe(7);

    const runAgent = new Map(
      (await t.database.db.select({ id: agentRuns.id, agentId: agentRuns.agentId }).from(agentRuns).where(eq(agentRuns.scheduledFor, slot))).map((r) => [r.id, r.agentId]),
    );
    const jobs = (await t.database.db.execute(sql`select data from pgboss.job where name = 'agent-run' and data ? 'runIds'`)) as unknown as { rows: Array<{ data: { runIds: number[] } }> };
    const batches = jobs.rows.map((r) => r.data.runIds.map((id) => runAgent.get(Number(id)))).filter((b) => b.every((agentId) => agentId !== undefined));
    const exchangeOf = (agentId: string | undefined) => (binance.some((a) => a.id === agentId) ? 'binance' : 'kraken');
    // 5 on Binance in batches of 3 and 2, the 2 on Kraken apart: each run in one batch.
    expect(batches.map((b) => `${exchangeOf(b[0])} ${b.length}`).sort()).toEqual(['binance 2', 'binance 3', 'kraken 2']);
    for (const batch of batches) expect(new Set(batch.map(exchangeOf)).size).toBe(1);
    expect(batches.flat().sort()).toEqual([...binance, ...kraken].map((a) => a.id).sort());

    await startWorker();
    for (const agent of [...binance, ...kraken]) await until(() => runsOf(agent.id), (runs) => runs[0]?.status === 'success');
  });

  it('a batch with failing agents records them failed and finishes every other run', async () => {
    const good = await createAll(4, everyMinute(['Binance']), 'good');
    const [broken, invalid] = await createAll(2, everyMinute(['Binance']), 'bad');
    // Stored outside the API: one config our code cannot read at all (an error on our side), and
    // one whose parameters no longer fit the template (the user's to fix).
    const { notifications: _, ...unreadable } = broken!.config;
    await t.database.db.update(agents).set({ config: unreadable as TAgentConfig }).where(eq(agents.id, broken!.id));
    await t.database.db.update(agents).set({ config: { ...invalid!.config, parameters: { ...invalid!.config.parameters, priceChangeThreshold: 'high' } } as unknown as TAgentConfig }).where(eq(agents.id, invalid!.id));
    const all = [...good, broken!, invalid!];
    const slot = await dueNow(all);
    const dispatcher = createDispatcher({ db: t.database.db, jobs: t.jobs, logger: silent, now: t.now });
    expect(await dispatcher.dispatchDue()).toBe(6);
    // One batch: the six runs share a job.
    const ids = await scheduledRunIds(all, slot);
    const jobs = (await t.database.db.execute(sql`select data from pgboss.job where name = 'agent-run' and data ? 'runIds'`)) as unknown as { rows: Array<{ data: { runIds: number[] } }> };
    expect(jobs.rows.some((r) => ids.every((id) => r.data.runIds.map(Number).includes(id)))).toBe(true);

    await startWorker();
    for (const agent of good) {
      const [run] = await until(() => runsOf(agent.id), finished);
      expect(run).toMatchObject({ status: 'success', error: null, scheduledFor: slot.toISOString() });
      expect((run!.result as TRunResult).markets[0]).toMatchObject({ ok: true, source: 'binance' });
      expect((await t.request({ url: `/api/agents/${agent.id}`, cookie: admin })).json().lastRun).toBe(run!.endTime);
    }
    const [brokenRun] = await until(() => runsOf(broken!.id), finished);
    expect(brokenRun).toMatchObject({ status: 'failure', error: RUN_FAILED_ERROR, result: null });
    const [invalidRun] = await until(() => runsOf(invalid!.id), finished);
    expect(invalidRun).toMatchObject({ status: 'failure', result: null });
    expect(invalidRun!.error).toContain(INVALID_PARAMETERS_ERROR);
    // The field by its label, as the wizard names it (issue 29 item 11), not its code name.
    expect(invalidRun!.error).not.toContain('priceChangeThreshold');
    expect(invalidRun!.error).toContain('Price change threshold (%) must be a number');
  });

  it('a run the database refuses to record is failed with our sentence; the batch’s other runs keep their results', async () => {
    const list = await createAll(3, everyMinute(['Binance']), 'refused');
    const refused = list[1]!;
    // The database refuses this agent's success, whatever statement records it (a fault of ours).
    await t.database.db.execute(sql.raw(`create function refuse_success() returns trigger language plpgsql as $$ begin raise exception 'refused by the test'; end $$`));
    await t.database.db.execute(
      sql.raw(`create trigger refuse_success before update on agent_runs for each row when (new.status = 'success' and new.agent_id = '${refused.id}') execute function refuse_success()`),
    );
    closing.push(async () => {
      await t.database.db.execute(sql.raw('drop trigger refuse_success on agent_runs'));
      await t.database.db.execute(sql.raw('drop function refuse_success'));
    });
    const slot = await dueNow(list);
    expect(await createDispatcher({ db: t.database.db, jobs: NO_JOBS, logger: silent, now: t.now }).dispatchDue()).toBe(3);
    expect(await executor().executeBatch(await scheduledRunIds(list, slot))).toBe(3);

    for (const agent of list) {
      const [run] = await runsOf(agent.id);
      if (agent === refused) expect(run).toMatchObject({ status: 'failure', error: RUN_FAILED_ERROR, result: null });
      else expect(run).toMatchObject({ status: 'success', error: null });
    }
  });

  it('a slot that has its run is not queued again when the next slot is set back to it (an edit within the lookahead)', async () => {
    const list = await createAll(3, everyMinute(['Binance']), 'set back');
    const slot = await dueNow(list);
    const dispatcher = createDispatcher({ db: t.database.db, jobs: NO_JOBS, logger: silent, now: t.now });
    expect(await dispatcher.dispatchDue()).toBe(3);
    // One agent's slot is set back to the one just queued (as an edit computing its next slot
    // from a moment before the slot does); the others are due at the next one.
    await scheduleAgents(t.database.db, [list[0]!.id], slot);
    expect(await dispatcher.dispatchDue()).toBe(0);
    expect(await scheduledRunIds(list, slot)).toHaveLength(3);
    // The dispatch that skipped the slot moved the agent to the next one, with the others.
    t.advanceTime(MINUTE);
    expect(await dispatcher.dispatchDue()).toBe(3);
    for (const a of list) expect(await scheduledRunIds([a], new Date(slot.getTime() + MINUTE))).toHaveLength(1);
  });

  it('a batch whose worker dies mid-way: its runs are failed as interrupted and the next slot runs', async () => {
    const list = await createAll(3, everyMinute(['Kraken']), 'orphaned');
    const slot = await dueNow(list);
    expect(await createDispatcher({ db: t.database.db, jobs: NO_JOBS, logger: silent, now: t.now }).dispatchDue()).toBe(3);
    // A worker takes the batch, then dies without a word: no result, and its leases are never renewed.
    const taken = await startRuns(t.database.db, await scheduledRunIds(list, slot), t.now(), new Date(t.now().getTime() + 2_000));
    expect(taken).toHaveLength(3);

    await startWorker();
    t.advanceTime(MINUTE);
    for (const agent of list) {
      const runs = await until(() => runsOf(agent.id), (r) => r.length === 2 && r[0]!.status === 'success' && r[1]!.status !== 'running');
      expect(runs[1]).toMatchObject({ status: 'failure', error: 'interrupted', scheduledFor: slot.toISOString() });
      expect(runs[0]!.scheduledFor).toBe(new Date(slot.getTime() + MINUTE).toISOString());
    }
  });

  it('two workers taking the same batch at once: each run executes and is recorded once, each alert stored once', async () => {
    const list = await createAll(8, everyMinute(['Binance'], ALWAYS), 'contested');
    const slot = await dueNow(list);
    expect(await createDispatcher({ db: t.database.db, jobs: NO_JOBS, logger: silent, now: t.now }).dispatchDue()).toBe(8);
    const ids = await scheduledRunIds(list, slot);
    const [a, b] = [executor(), executor()];
    const taken = await Promise.all([a.executeBatch(ids), b.executeBatch([...ids].reverse()), b.executeBatch(ids.slice(2, 6))]);
    expect(taken.reduce((sum, n) => sum + n, 0)).toBe(8);

    const rows = await t.database.db.select().from(agentRuns).where(inArray(agentRuns.id, ids));
    expect(rows.map((r) => r.status)).toEqual(Array(8).fill('success'));
    const stored = await t.database.db.select().from(notifications).where(inArray(notifications.agentId, list.map((x) => x.id)));
    expect(stored.map((n) => n.agentId).sort()).toEqual(list.map((x) => x.id).sort());
    expect(new Set(stored.map((n) => n.runId))).toEqual(new Set(ids));

    // And two worker processes' loops on the real queue, slot after slot: one run per agent per slot.
    await startWorker();
    await startWorker();
    for (let minute = 1; minute <= 2; minute++) {
      t.advanceTime(MINUTE);
      for (const agent of list) await until(() => runsOf(agent.id), (runs) => runs.length === minute + 1 && finished(runs));
    }
    const perSlot = await t.database.db
      .select({ agentId: agentRuns.agentId, slot: agentRuns.scheduledFor })
      .from(agentRuns)
      .where(and(inArray(agentRuns.agentId, list.map((x) => x.id)), isNotNull(agentRuns.scheduledFor)));
    expect(perSlot).toHaveLength(24);
    expect(new Set(perSlot.map((r) => `${r.agentId} ${r.slot!.toISOString()}`)).size).toBe(24);
  });

  it('measures performance against the previous success’s prices, read from its result when it was recorded before the prices column', async () => {
    const [agent] = await createAll(1, everyMinute(['Binance', 'Kraken']), 'performer');
    const run = executor();
    const slot = await dueNow([agent!]);
    expect(await createDispatcher({ db: t.database.db, jobs: NO_JOBS, logger: silent, now: t.now }).dispatchDue()).toBe(1);
    const [first] = await scheduledRunIds([agent!], slot);
    expect(await run.executeBatch([first!])).toBe(1);
    const [recorded] = await t.database.db.select().from(agentRuns).where(eq(agentRuns.id, first!));
    expect(recorded!.prices).toEqual({ 'binance:BTC/USDT': expect.any(Number), 'kraken:BTC/USD': expect.any(Number) });
    // As a run recorded before migration 0013 left it: prices only in its result.
    await t.database.db.update(agentRuns).set({ prices: null }).where(eq(agentRuns.id, first!));

    for (const minute of [1, 2]) {
      t.advanceTime(5 * MINUTE); // new candles: prices move
      const runNow = await t.request({ method: 'POST', url: `/api/agents/${agent!.id}/run`, cookie: admin });
      expect(await run.executeBatch([runNow.json<{ runId: number }>().runId])).toBe(1);
      const [latest, previous] = await runsOf(agent!.id);
      const price = (r: TAgentRun, source: string) => (r.result as TRunResult).markets.find((m) => m.source === source && m.ok)!;
      const change = (['binance', 'kraken'] as const).map((source) => {
        const [now, before] = [price(latest!, source), price(previous!, source)];
        return now.ok && before.ok ? (now.price / before.price - 1) * 100 : Number.NaN;
      });
      const mean = Math.round(((change[0]! + change[1]!) / 2) * 10) / 10;
      expect((latest!.result as TRunResult).performance, `run ${minute}`).toBe(`${mean > 0 ? '+' : mean < 0 ? '-' : ''}${Math.abs(mean).toFixed(1)}%`);
    }
  });

  it('a batch failing slot after slot: each agent is told once that it is failing, after its third failed run', async () => {
    const list = await createAll(3, everyMinute(['Binance'], { inApp: true }), 'failing');
    // Parameters that no longer fit the template: every run fails, for each of them.
    for (const agent of list) {
      await t.database.db.update(agents).set({ config: { ...agent.config, parameters: { ...agent.config.parameters, volatilityThreshold: 'wild' } } as unknown as TAgentConfig }).where(eq(agents.id, agent.id));
    }
    const failingOf = async () => (await t.database.db.select().from(notifications).where(inArray(notifications.agentId, list.map((a) => a.id)))).filter((n) => n.kind === 'failing');
    const run = executor();
    let slot = await dueNow(list);
    for (let minute = 1; minute <= 4; minute++) {
      expect(await createDispatcher({ db: t.database.db, jobs: NO_JOBS, logger: silent, now: t.now }).dispatchDue()).toBe(3);
      expect(await run.executeBatch(await scheduledRunIds(list, slot))).toBe(3);
      // Told after the third failed run in a row, once.
      expect((await failingOf()).map((n) => n.agentId).sort()).toEqual(minute < 3 ? [] : list.map((a) => a.id).sort());
      slot = new Date(slot.getTime() + MINUTE);
      t.advanceTime(MINUTE);
    }
    for (const agent of list) expect((await runsOf(agent.id)).map((r) => r.status)).toEqual(Array(4).fill('failure'));
  });

  it('alerts of a batch: each firing condition stored once, before its run shows finished, and not again while it keeps firing', async () => {
    const list = await createAll(5, everyMinute(['Binance'], ALWAYS), 'alerting');
    const slot = await dueNow(list);
    expect(await createDispatcher({ db: t.database.db, jobs: NO_JOBS, logger: silent, now: t.now }).dispatchDue()).toBe(5);
    const ids = await scheduledRunIds(list, slot);
    // A run-now of the first agent in the same batch: two runs of one agent, one alert event.
    const runNow = await t.request({ method: 'POST', url: `/api/agents/${list[0]!.id}/run`, cookie: admin });
    expect(runNow.statusCode).toBe(202);
    const run = executor();
    expect(await run.executeBatch([...ids, runNow.json<{ runId: number }>().runId])).toBe(6);

    const notified = async () => t.database.db.select().from(notifications).where(inArray(notifications.agentId, list.map((a) => a.id)));
    const first = await notified();
    expect(first.map((n) => n.agentId).sort()).toEqual(list.map((a) => a.id).sort());
    for (const n of first) {
      expect(n).toMatchObject({ kind: 'alerts', market: 'BTC/USDT on binance', thresholdType: 'priceChange' });
      const [recorded] = await t.database.db.select().from(agentRuns).where(eq(agentRuns.id, n.runId!));
      expect(recorded!.status).toBe('success');
      expect((recorded!.result as TRunResult).alerts).toEqual([expect.objectContaining({ threshold: 'priceChange', market: 'BTC/USDT on binance' })]);
      expect(n.createdAt.getTime()).toBeLessThanOrEqual(recorded!.endTime!.getTime());
    }
    const states = await t.database.db.select().from(alertStates).where(inArray(alertStates.agentId, list.map((a) => a.id)));
    expect(states).toHaveLength(5);

    // The next slot: still firing, nothing new.
    t.advanceTime(MINUTE);
    expect(await createDispatcher({ db: t.database.db, jobs: NO_JOBS, logger: silent, now: t.now }).dispatchDue()).toBe(5);
    const next = await scheduledRunIds(list, new Date(slot.getTime() + MINUTE));
    expect(await run.executeBatch(next)).toBe(5);
    const after = await t.database.db.select().from(agentRuns).where(inArray(agentRuns.id, next));
    expect(after.map((r) => r.status)).toEqual(Array(5).fill('success'));
    expect(await notified()).toHaveLength(5);
  });
});
