import { and, eq, inArray, sql } from 'drizzle-orm';
import type { TAgentRun } from '../../../contracts/agents.ts';
import pino from 'pino';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { defaultAgentConfig, findTemplate, type TAgentConfig } from '../../../contracts/agents.ts';
import { agentRunMarkets, agentRuns, agents, runLeases } from '../../db/schema.ts';
import { createTestApp, type TestApp } from '../../test/test-app.ts';
import { findRun } from '../agents/agents.repo.ts';
import { createMarketData } from '../market/market-data.ts';
import { createDispatcher } from './dispatcher.ts';
import { createRunExecutor } from './run-executor.ts';
import { deleteUnreadRunMarkets, extendLease, startRuns } from './runtime.repo.ts';
import { scheduleAgents } from '../../test/agent-schedules.ts';

const CRYPTO = 'crypto-market-monitor';
const MINUTE = 60_000;
const silent = pino({ level: 'silent' });
const NO_JOBS = { enqueueRunBatches: async () => {} };

function everyMinute(exchange = 'Binance'): TAgentConfig {
  const template = findTemplate(CRYPTO)!;
  const { parameters } = defaultAgentConfig(template);
  return {
    schedule: { frequency: 'realtime', daysActive: ['Monday', 'Tuesday', 'Wednesday', 'Thursday', 'Friday', 'Saturday', 'Sunday'], activeHours: { start: '00:00', end: '23:59' }, timeZone: 'UTC' },
    notifications: { ...template.defaultConfig.notifications, email: false, thresholds: [] },
    parameters: { ...parameters, exchanges: [exchange] },
  };
}

/**
 * A batch's lease lives in run_leases, one row per batch (docs/decisions/0102), not in each run's
 * row: created as the runs are taken, renewed as one row, gone once they are recorded, and when it
 * lapses its runs (and only those) are failed 'interrupted'. agent_runs keeps no index over a
 * column a run's writes change, so those writes are HOT updates.
 */
describe('run leases and results written once', () => {
  let t: TestApp;
  let admin: string;
  const closing: Array<() => Promise<void>> = [];

  beforeAll(async () => {
    t = await createTestApp({ env: { ADMIN_EMAILS: 'admin@example.com', MARKET_DATA: 'simulated', WRITE_RATE_LIMIT: '1000' } });
    admin = await t.signIn('admin@example.com', 'Admin');
  });
  afterEach(async () => {
    for (const close of closing.splice(0)) await close();
    await t.database.db.update(agents).set({ status: 'paused' });
  });
  afterAll(async () => t.close());

  /** `count` agents with one queued run each at the next minute boundary (the clock moved just past it); their run ids. */
  const queuedRuns = async (count: number, name: string, exchanges: readonly string[] = ['Binance']): Promise<number[]> => {
    const ids: string[] = [];
    for (let i = 0; i < count; i++) {
      const config = everyMinute(exchanges[i % exchanges.length]);
      const res = await t.request({ method: 'POST', url: '/api/agents', cookie: admin, payload: { templateId: CRYPTO, name: `${name} ${i}`, config } });
      expect(res.statusCode).toBe(201);
      ids.push(res.json<{ id: string }>().id);
    }
    const slot = new Date(Math.ceil((t.now().getTime() + 1) / MINUTE) * MINUTE);
    await scheduleAgents(t.database.db, ids, slot, 'running');
    t.advanceTime(slot.getTime() - t.now().getTime() + 100);
    expect(await createDispatcher({ db: t.database.db, jobs: NO_JOBS, logger: silent, now: t.now }).dispatchDue()).toBe(count);
    const rows = await t.database.db
      .select({ id: agentRuns.id })
      .from(agentRuns)
      .where(and(inArray(agentRuns.agentId, ids), eq(agentRuns.scheduledFor, slot)));
    return rows.map((r) => r.id).sort((a, b) => a - b);
  };
  const leaseOf = async (id: number) => (await t.database.db.select().from(runLeases).where(eq(runLeases.id, id)))[0] ?? null;
  const statusesOf = async (ids: readonly number[]) =>
    (await t.database.db.select({ id: agentRuns.id, status: agentRuns.status, error: agentRuns.error }).from(agentRuns).where(inArray(agentRuns.id, [...ids]))).sort((a, b) => a.id - b.id);
  const sweep = (at: Date) => createDispatcher({ db: t.database.db, jobs: NO_JOBS, logger: silent, now: () => at }).recoverInterrupted();

  it('a batch taken gets one lease over its runs, renewed as one row; a second worker given the same batch takes nothing', async () => {
    const ids = await queuedRuns(3, 'leased');
    const until = new Date(t.now().getTime() + 30_000);
    const taken = await startRuns(t.database.db, ids, t.now(), until);
    expect(taken.map((r) => r.id)).toEqual(ids);
    const leaseId = taken[0]!.leaseId;
    expect(new Set(taken.map((r) => r.leaseId))).toEqual(new Set([leaseId]));
    expect(await leaseOf(leaseId)).toEqual({ id: leaseId, runIds: ids, expiresAt: until });

    // The same ids again, as a redelivered job or a second worker would: nothing taken, no lease made.
    const leasesBefore = await t.database.db.select().from(runLeases);
    expect(await startRuns(t.database.db, [...ids].reverse(), t.now(), until)).toEqual([]);
    expect(await t.database.db.select().from(runLeases)).toEqual(leasesBefore);

    const later = new Date(until.getTime() + 30_000);
    await extendLease(t.database.db, leaseId, later);
    expect((await leaseOf(leaseId))!.expiresAt).toEqual(later);
    // Renewed: a sweep after the first expiry leaves the batch running.
    expect(await sweep(new Date(until.getTime() + 1_000))).toBe(0);
    expect((await statusesOf(ids)).map((r) => r.status)).toEqual(['running', 'running', 'running']);
    await sweep(new Date(later.getTime() + 1_000));
  });

  it('a lapsed lease fails its own runs interrupted and removes it; another batch running and finished runs are left alone', async () => {
    const ids = await queuedRuns(4, 'lapsing');
    const [dead, alive] = [ids.slice(0, 2), ids.slice(2)];
    const soon = new Date(t.now().getTime() + 2_000);
    const [deadRun] = await startRuns(t.database.db, dead, t.now(), soon);
    const [aliveRun] = await startRuns(t.database.db, alive, t.now(), new Date(t.now().getTime() + MINUTE));
    // One of the dead worker's runs was recorded before it died.
    await t.database.db.update(agentRuns).set({ status: 'success', endTime: t.now() }).where(eq(agentRuns.id, dead[0]!));

    expect(await sweep(new Date(soon.getTime() + 1_000))).toBe(1);
    expect(await statusesOf(ids)).toEqual([
      { id: dead[0], status: 'success', error: null },
      { id: dead[1], status: 'failure', error: 'interrupted' },
      { id: alive[0], status: 'running', error: null },
      { id: alive[1], status: 'running', error: null },
    ]);
    expect(await leaseOf(deadRun!.leaseId)).toBeNull();
    expect(await leaseOf(aliveRun!.leaseId)).not.toBeNull();
    // Swept once: the next sweep finds nothing.
    expect(await sweep(new Date(soon.getTime() + 2_000))).toBe(0);
    await sweep(new Date(t.now().getTime() + 2 * MINUTE));
  });

  it('a batch executed and recorded leaves no lease behind', async () => {
    const ids = await queuedRuns(3, 'released');
    const marketData = createMarketData(t.config.market, { logger: silent, now: t.now });
    closing.push(() => marketData.close());
    const executor = createRunExecutor({ db: t.database.db, marketData, onChain: null, alerts: t.app.notifications, logger: silent, now: t.now, leaseSeconds: 30 });
    const leasesBefore = await t.database.db.select().from(runLeases);
    expect(await executor.executeBatch(ids)).toBe(3);
    expect((await statusesOf(ids)).map((r) => r.status)).toEqual(['success', 'success', 'success']);
    expect(await t.database.db.select().from(runLeases)).toEqual(leasesBefore);
  });

  const executor = () => {
    const marketData = createMarketData(t.config.market, { logger: silent, now: t.now });
    closing.push(() => marketData.close());
    return createRunExecutor({ db: t.database.db, marketData, onChain: null, alerts: t.app.notifications, logger: silent, now: t.now, leaseSeconds: 30 });
  };
  const storedRuns = (ids: readonly number[]) => t.database.db.select().from(agentRuns).where(inArray(agentRuns.id, [...ids]));

  it('the runs of a batch on one market store its result once, and each run’s history shows it whole', async () => {
    const ids = await queuedRuns(3, 'sharing');
    expect(await executor().executeBatch(ids)).toBe(3);
    const rows = await storedRuns(ids);
    const marketIds = new Set(rows.flatMap((r) => r.marketIds ?? []));
    expect(marketIds.size).toBe(1);
    expect(rows.every((r) => r.marketIds?.length === 1 && r.result !== null && !('markets' in (r.result as object)))).toBe(true);
    const [stored] = await t.database.db.select().from(agentRunMarkets).where(eq(agentRunMarkets.id, [...marketIds][0]!));
    expect(stored).toMatchObject({ firstRunId: ids[0], lastRunId: ids.at(-1), market: { ok: true, source: 'binance', symbol: 'BTC/USDT' } });

    // What a person reads in Run History: the whole result, its market with its chart.
    for (const row of rows) {
      const history = (await t.request({ url: `/api/agents/${row.agentId}/runs`, cookie: admin })).json<TAgentRun[]>();
      const run = history.find((r) => r.id === row.id)!;
      expect(run.result).toMatchObject({ templateId: CRYPTO, alerts: [], markets: [stored!.market], performance: null });
      // The assistants' get_run reads one run so too.
      expect((await findRun(t.database.db, row.agentId, row.id))!.result).toEqual(run.result);
    }
  });

  it('a stored market no run reads any more is deleted; one still read is kept', async () => {
    const ids = await queuedRuns(2, 'unread', ['Binance', 'Kraken']);
    expect(await executor().executeBatch(ids)).toBe(2);
    const rows = await storedRuns(ids);
    expect(new Set(rows.flatMap((r) => r.marketIds ?? [])).size).toBe(2);
    const [kraken] = (await t.database.db.select().from(agentRunMarkets).where(inArray(agentRunMarkets.id, rows.flatMap((r) => r.marketIds ?? [])))).filter(
      (m) => (m.market as { source: string }).source === 'kraken',
    );
    const krakenRun = rows.find((r) => r.marketIds?.includes(kraken!.id))!;
    expect((await t.request({ method: 'DELETE', url: `/api/agents/${krakenRun.agentId}`, cookie: admin })).statusCode).toBe(204);

    // Looked at in passes of one row: each goes on after the last.
    let afterId = 0;
    let deleted = 0;
    for (;;) {
      const pass = await deleteUnreadRunMarkets(t.database.db, afterId, 1);
      deleted += pass.deleted;
      if (pass.lastId === null) break;
      afterId = pass.lastId;
    }
    expect(deleted).toBeGreaterThanOrEqual(1);
    const left = await t.database.db.select({ id: agentRunMarkets.id }).from(agentRunMarkets).where(inArray(agentRunMarkets.id, rows.flatMap((r) => r.marketIds ?? [])));
    expect(left.map((m) => m.id)).toEqual(rows.find((r) => r !== krakenRun)!.marketIds);
  });

  it('agent_runs has no index over a column a run’s writes change, and room on its pages for HOT updates', async () => {
    const indexes = await t.database.db.execute(sql`select indexname from pg_indexes where tablename = 'agent_runs' order by indexname`);
    expect(rowsOf<{ indexname: string }>(indexes).map((r) => r.indexname)).toEqual(['agent_runs_agent_id_idx', 'agent_runs_agent_slot_idx', 'agent_runs_pkey']);
    // Decision 0103 moved what a run writes of its agent to agent_schedules, at fillfactor 50 in
    // its turn; agents went back to the default (0102 had set it to 50, as this test asserted).
    const options = await t.database.db.execute(sql`select relname, reloptions from pg_class where relname in ('agent_runs', 'agent_schedules', 'agents') order by relname`);
    expect(rowsOf<{ relname: string; reloptions: string[] | string | null }>(options).map((r) => [r.relname, String(r.reloptions)])).toEqual([
      ['agent_runs', expect.stringContaining('fillfactor=50')],
      ['agent_schedules', expect.stringContaining('fillfactor=50')],
      ['agents', 'null'],
    ]);
  });

  it('agent_schedules: the due scan’s partial index on next_run_at is its only index beside the key; agents has none over it', async () => {
    const indexes = await t.database.db.execute(
      sql`select tablename, indexname, indexdef from pg_indexes where tablename in ('agent_schedules', 'agents') order by tablename, indexname`,
    );
    expect(rowsOf<{ tablename: string; indexname: string; indexdef: string }>(indexes).map((r) => [r.tablename, r.indexname, r.indexdef.includes('WHERE (next_run_at IS NOT NULL)')])).toEqual([
      ['agent_schedules', 'agent_schedules_next_run_idx', true],
      ['agent_schedules', 'agent_schedules_pkey', false],
      ['agents', 'agents_owner_created_idx', false],
      ['agents', 'agents_pkey', false],
    ]);
  });
});

/** Rows of a raw `execute()` on either driver. */
function rowsOf<T>(result: unknown): T[] {
  return (Array.isArray(result) ? result : (result as { rows: T[] }).rows) as T[];
}
