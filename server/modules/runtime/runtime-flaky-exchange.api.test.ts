import { arrayOverlaps, asc, inArray } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { defaultAgentConfig, findTemplate, type TAgent, type TAgentConfig } from '../../../contracts/agents.ts';
import { MARKET_FAILURES } from '../../../contracts/market.ts';
import { agentRuns, runLeases } from '../../db/schema.ts';
import { createTestApp, type TestApp } from '../../test/test-app.ts';
import { startTestWorkers } from '../../test/test-workers.ts';
import { until } from '../../test/until.ts';
import { FAKE_EXCHANGES, startFakeExchanges, type FakeExchanges } from '../../../tests/fakes/exchanges.ts';
import type { Workers } from './workers.ts';

const MINUTE = 60_000;
/** Minutes of schedule walked through: every agent is due once in each. */
const SLOTS = 5;

/** Each agent's exchanges and coin; the last one reads three exchanges at once. */
const WATCHES: Array<{ exchanges: string[]; token: string }> = [
  { exchanges: ['Binance'], token: 'BTC' },
  { exchanges: ['Coinbase'], token: 'ETH' },
  { exchanges: ['Kraken'], token: 'SOL' },
  { exchanges: ['KuCoin'], token: 'BTC' },
  { exchanges: ['Huobi'], token: 'ETH' },
  { exchanges: ['Binance', 'Coinbase', 'KuCoin'], token: 'SOL' },
];

function everyMinute(watch: (typeof WATCHES)[number]): TAgentConfig {
  const template = findTemplate('crypto-market-monitor')!;
  const { parameters } = defaultAgentConfig(template);
  return {
    schedule: { frequency: 'realtime', daysActive: ['Monday', 'Tuesday', 'Wednesday', 'Thursday', 'Friday', 'Saturday', 'Sunday'], activeHours: { start: '00:00', end: '23:59' }, timeZone: 'UTC' },
    notifications: { ...template.defaultConfig.notifications, email: false },
    parameters: { ...parameters, ...watch, timeframe: '1min' },
  };
}

/** A failed run's error names each market and the sentence of its failure, one the chaos serves
 * (429, 500, hangs): 'BTC/USDT (binance): <sentence> ETH/USD (coinbase): <sentence>'. */
const escape = (text: string) => text.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');
const CHAOS_SENTENCE = (['rate-limited', 'unavailable', 'timeout', 'unreachable'] as const).map((kind) => escape(MARKET_FAILURES[kind])).join('|');
const CLEAR_ERROR = new RegExp(`^([A-Z]+/USDT? \\(\\w+\\): (${CHAOS_SENTENCE})( |$))+$`);

/**
 * Several agents on the finest schedule (every minute) against exchanges that answer each
 * request at random (seeded) with a 429, a 500, a hang or their data. The app's clock walks
 * through SLOTS minutes, moving on as soon as workers have taken each minute's runs, so runs of
 * one minute still retry or wait on a hung exchange while the next minute's are dispatched. Every due slot must end with exactly one
 * finished run: a success, or a failure with a clear error; none lost, doubled, or left running.
 */
describe('agents on a schedule against flaky exchanges', () => {
  let exchanges: FakeExchanges;
  let t: TestApp;
  let workers: Workers;

  beforeAll(async () => {
    // The exchanges' candles run up to the app's clock, which this test moves ahead of the real one:
    // otherwise every market would be minutes behind the run, which is stale data (issue 15).
    exchanges = await startFakeExchanges({ now: () => (t ? t.now().getTime() : Date.now()) });
    FAKE_EXCHANGES.forEach((exchange, i) => exchanges.setFault(exchange, 'flaky', { probability: 0.5, seed: 11 + i }));
    // A lease far longer than the clock's jumps: a run in progress is never taken for a dead one.
    t = await createTestApp({
      env: { ...exchanges.env, ADMIN_EMAILS: 'admin@example.com', MARKET_DATA: 'live', MARKET_RETRIES: '1', MARKET_TIMEOUT_MS: '400', DISPATCH_INTERVAL_MS: '50', RUN_LEASE_SECONDS: '900', DISPATCH_LOOKAHEAD_MS: '0' },
    });
  });
  afterAll(async () => {
    await workers?.stop();
    await t?.close();
    await exchanges?.close();
  });

  it(`${WATCHES.length} agents x ${SLOTS} minutes: one finished run per due slot, whatever the exchanges answer`, async () => {
    const admin = await t.signIn('admin@example.com', 'Admin');
    const agents: TAgent[] = [];
    for (const [i, watch] of WATCHES.entries()) {
      const created = await t.request({ method: 'POST', url: '/api/agents', cookie: admin, payload: { templateId: 'crypto-market-monitor', name: `flaky ${i}`, config: everyMinute(watch) } });
      expect(created.statusCode).toBe(201);
      const resumed = await t.request({ method: 'PATCH', url: `/api/agents/${created.json<TAgent>().id}`, cookie: admin, payload: { status: 'running' } });
      agents.push(resumed.json<TAgent>());
    }
    const ids = agents.map((a) => a.id);
    const firstSlot = Math.min(...agents.map((a) => Date.parse(a.nextRunAt!)));
    const lastMoment = firstSlot + (SLOTS - 1) * MINUTE + 1_000;
    /** An agent's slots due by `at` (agents resumed across a minute boundary start a minute later). */
    const slotsDue = (agent: TAgent, at: number) => Array.from({ length: SLOTS }, (_, k) => Date.parse(agent.nextRunAt!) + k * MINUTE).filter((slot) => slot <= at);
    const runs = () => t.database.db.select().from(agentRuns).where(inArray(agentRuns.agentId, ids)).orderBy(asc(agentRuns.id));
    workers = await startTestWorkers(t);

    for (let k = 0; k < SLOTS; k++) {
      const at = firstSlot + k * MINUTE + 1_000;
      t.advanceTime(at - t.now().getTime());
      const due = agents.reduce((sum, agent) => sum + slotsDue(agent, at).length, 0);
      // On to the next minute once this one's runs are queued and taken by workers, not done.
      await until(runs, (rows) => rows.length >= due && rows.every((r) => r.status !== 'queued'), 20_000);
    }
    const finished = await until(runs, (rows) => rows.every((r) => r.status === 'success' || r.status === 'failure'), 30_000);

    for (const agent of agents) {
      const own = finished.filter((r) => r.agentId === agent.id);
      expect(own.map((r) => r.scheduledFor?.getTime())).toEqual(slotsDue(agent, lastMoment));
    }
    expect(finished.length).toBeGreaterThanOrEqual(agents.length * (SLOTS - 1));
    for (const run of finished) {
      expect(run.endTime).not.toBeNull();
      if (run.status === 'failure') expect(run.error).toMatch(CLEAR_ERROR);
    }
    // Each batch's lease (run_leases, docs/decisions/0102) goes once its runs are recorded.
    const leasesOfFinished = () => t.database.db.select().from(runLeases).where(arrayOverlaps(runLeases.runIds, finished.map((r) => r.id)));
    await until(leasesOfFinished, (leases) => leases.length === 0);
    // The chaos was real: every kind of failure was served, and runs both failed and succeeded.
    const outcomes = new Set(exchanges.requests().map((r) => r.outcome));
    expect([...outcomes]).toEqual(expect.arrayContaining([200, 429, 500, 'hang']));
    expect(new Set(finished.map((r) => r.status))).toEqual(new Set(['success', 'failure']));
  }, 55_000);
});
