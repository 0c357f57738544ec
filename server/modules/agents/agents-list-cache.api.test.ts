import pino from 'pino';
import { eq, sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { defaultAgentConfig, findTemplate, type TAgent, type TAgentRun } from '../../../contracts/agents.ts';
import { OWNER_CHANGE_NOTICES } from '../../db/client.ts';
import { agentRuns, agents } from '../../db/schema.ts';
import { listenLocally } from '../../test/event-stream-client.ts';
import { createTestApp, type TestApp } from '../../test/test-app.ts';
import { until } from '../../test/until.ts';
import { startWorkers, type Workers } from '../runtime/workers.ts';

const onPostgres = process.env.TEST_DATABASE === 'postgres';
const STOCK = 'stock-market-scanner';
const config = () => defaultAgentConfig(findTemplate(STOCK)!, 'UTC');

/** A write the database does not announce (its notices off for this transaction only), as no
 * module of ours can make: shows whether an answer came from a process's cache. */
async function unannounced(t: TestApp, write: (tx: TestApp['database']['db']) => Promise<unknown>): Promise<void> {
  await t.database.db.transaction(async (tx) => {
    await tx.execute(sql`select set_config(${OWNER_CHANGE_NOTICES}, 'off', true)`);
    await write(tx as unknown as TestApp['database']['db']); // a transaction is a Db for these writes
  });
}

describe.skipIf(onPostgres)('agents lists kept in memory on PGlite (docs/decisions/0059)', () => {
  let t: TestApp;
  let workers: Workers;
  let admin: string;
  beforeAll(async () => {
    t = await createTestApp({ env: { ADMIN_EMAILS: 'admin@example.com,other@example.com', MARKET_DATA: 'simulated', DISPATCH_INTERVAL_MS: '50' } });
    admin = await t.signIn('admin@example.com', 'Admin');
    workers = await startWorkers({ config: t.config, database: t.database, jobs: t.jobs, logger: pino({ level: 'silent' }), now: t.now });
  });
  afterAll(async () => {
    await workers?.stop();
    await t?.close();
  });

  const list = async (cookie = admin): Promise<TAgent[]> => {
    const res = await t.request({ url: '/api/agents', cookie });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.headers['content-type']).toBe('application/json; charset=utf-8');
    return res.json();
  };
  const create = async (name: string, cookie = admin): Promise<TAgent> =>
    (await t.request({ method: 'POST', url: '/api/agents', cookie, payload: { templateId: STOCK, name, config: config() } })).json();
  const names = async (cookie = admin) => (await list(cookie)).map((a) => a.name);

  it('answers from memory until the database announces a change of the owner’s agents', async () => {
    const agent = await create('Kept');
    expect(await names()).toEqual(['Kept']);
    // Not announced: the kept list is what answers (the cache is in use)...
    await unannounced(t, (db) => db.update(agents).set({ name: 'Unannounced' }).where(eq(agents.id, agent.id)));
    expect(await names()).toEqual(['Kept']);
    // ...and any announced change, even one written past every module, reaches the next request.
    await t.database.db.update(agents).set({ name: 'Renamed in SQL' }).where(eq(agents.id, agent.id));
    expect(await names()).toEqual(['Renamed in SQL']);
    await t.request({ method: 'DELETE', url: `/api/agents/${agent.id}`, cookie: admin });
  });

  it('a run recorded past every module (agent_runs, as the runtime writes it) reaches the next request with its last run and performance', async () => {
    const agent = await create('Scheduled');
    expect((await list())[0]).toMatchObject({ lastRun: null, performance: null });
    // Not announced: still the kept list...
    const earlier = new Date('2026-11-02T09:00:00.000Z');
    await unannounced(t, (db) => db.insert(agentRuns).values({ agentId: agent.id, status: 'success', endTime: earlier, performance: '+9.9%' }));
    expect((await list())[0]).toMatchObject({ lastRun: null, performance: null });
    // ...while the runtime's own write, past every module, is announced by the runs' trigger
    // (migration 0015): neither the agents row nor its schedule row is written (decision 0104).
    const at = new Date('2026-11-02T10:00:00.000Z');
    await t.database.db.insert(agentRuns).values({ agentId: agent.id, status: 'success', endTime: at, performance: '+1.5%' });
    expect((await list())[0]).toMatchObject({ lastRun: at.toISOString(), performance: '+1.5%' });
    // A later failure is the last run; the performance stays the latest success's.
    const failed = new Date('2026-11-02T11:00:00.000Z');
    await t.database.db.insert(agentRuns).values({ agentId: agent.id, status: 'failure', endTime: failed, error: 'exchange down' });
    expect((await list())[0]).toMatchObject({ lastRun: failed.toISOString(), performance: '+1.5%' });
    await t.request({ method: 'DELETE', url: `/api/agents/${agent.id}`, cookie: admin });
  });

  it('every change through the API shows at the very next request', async () => {
    const first = await create('First');
    expect(await names()).toEqual(['First']);
    const second = await create('Second');
    expect(await names()).toEqual(['Second', 'First']);
    await t.request({ method: 'PATCH', url: `/api/agents/${first.id}`, cookie: admin, payload: { name: 'First, renamed' } });
    expect(await names()).toEqual(['Second', 'First, renamed']);
    await t.request({ method: 'PATCH', url: `/api/agents/${second.id}`, cookie: admin, payload: { status: 'running' } });
    const [running] = await list();
    expect(running).toMatchObject({ status: 'running', nextRunAt: expect.any(String) });
    await t.request({ method: 'DELETE', url: `/api/agents/${second.id}`, cookie: admin });
    expect(await names()).toEqual(['First, renamed']);
    await t.request({ method: 'DELETE', url: `/api/agents/${first.id}`, cookie: admin });
    expect(await list()).toEqual([]);
  });

  it('a run the workers finish shows in the list as soon as it shows in the agent’s runs', async () => {
    const agent = await create('Runner');
    expect((await list())[0]).toMatchObject({ lastRun: null, health: { state: 'new' } });
    const queued = await t.request({ method: 'POST', url: `/api/agents/${agent.id}/run`, cookie: admin });
    expect(queued.statusCode).toBe(202);
    const { runId } = queued.json<{ runId: number }>();
    // Polling the list meanwhile keeps it in memory between the run's writes.
    const runs = await until(
      async () => {
        await list();
        return (await t.request({ url: `/api/agents/${agent.id}/runs`, cookie: admin })).json<TAgentRun[]>();
      },
      (found) => found.some((r) => r.id === runId && r.status === 'success'),
      20_000,
    );
    const run = runs.find((r) => r.id === runId)!;
    expect((await list())[0]).toMatchObject({ lastRun: expect.any(String), health: { state: 'healthy', lastSuccessAt: run.endTime } });
    // A failure recorded past the runtime (as a recovered lease is) turns it failing at once.
    await t.database.db.insert(agentRuns).values({ agentId: agent.id, status: 'failure', error: 'Interrupted: the worker stopped', endTime: t.now() });
    expect((await list())[0]!.health).toMatchObject({ state: 'failing', reason: 'Interrupted: the worker stopped' });
    await t.request({ method: 'DELETE', url: `/api/agents/${agent.id}`, cookie: admin });
  });

  it('keeps each owner’s list apart: another owner’s change leaves this one’s kept', async () => {
    const other = await t.signIn('other@example.com', 'Other');
    const mine = await create('Mine');
    const theirs = await create('Theirs', other);
    expect(await names()).toEqual(['Mine']);
    expect(await names(other)).toEqual(['Theirs']);
    await unannounced(t, (db) => db.update(agents).set({ name: 'Mine, unannounced' }).where(eq(agents.id, mine.id)));
    await t.request({ method: 'PATCH', url: `/api/agents/${theirs.id}`, cookie: other, payload: { name: 'Theirs, renamed' } });
    expect(await names(other)).toEqual(['Theirs, renamed']);
    expect(await names()).toEqual(['Mine']); // still the kept one: only the other owner's went
    await t.request({ method: 'DELETE', url: `/api/agents/${mine.id}`, cookie: admin });
    expect(await list()).toEqual([]);
  });
});

describe.runIf(onPostgres)('agents lists across two processes on PostgreSQL', () => {
  let a: TestApp;
  let b: TestApp;
  let admin: string;
  /** b as a browser reaches another process: over HTTP, after a's answer has arrived. */
  let bUrl: string;
  const listFromB = async (): Promise<TAgent[]> => (await fetch(`${bUrl}/api/agents`, { headers: { cookie: admin } })).json() as Promise<TAgent[]>;
  beforeAll(async () => {
    a = await createTestApp({ env: { ADMIN_EMAILS: 'admin@example.com' } });
    b = await createTestApp({ sameDatabaseAs: a, env: { ADMIN_EMAILS: 'admin@example.com' } });
    bUrl = await listenLocally(b.app);
    admin = await a.signIn('admin@example.com', 'Admin');
  });
  afterAll(async () => {
    await b?.close();
    await a?.close();
  });

  it('a change in one process, announced or not, is in the other’s next answer: nothing is kept', async () => {
    const agent = (await a.request({ method: 'POST', url: '/api/agents', cookie: admin, payload: { templateId: STOCK, name: 'Shared', config: config() } })).json<TAgent>();
    for (let i = 0; i < 3; i++) expect((await listFromB()).map((x) => x.name)).toEqual(['Shared']);
    await a.request({ method: 'PATCH', url: `/api/agents/${agent.id}`, cookie: admin, payload: { name: 'Renamed in a' } });
    expect((await listFromB()).map((x) => x.name)).toEqual(['Renamed in a']);
    await a.database.db.insert(agentRuns).values({ agentId: agent.id, status: 'failure', error: 'Provider down', endTime: new Date() });
    expect((await listFromB())[0]!.health).toMatchObject({ state: 'failing', reason: 'Provider down' });
    await unannounced(a, (db) => db.update(agents).set({ name: 'Unannounced' }).where(eq(agents.id, agent.id)));
    expect((await listFromB()).map((x) => x.name)).toEqual(['Unannounced']);
    expect(b.app.invalidations.announced('agents')).toBe(false);
  });
});
