import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { defaultAgentConfig, findTemplate } from '../../contracts/agents.ts';
import { startAppServer, type AppServer } from '../e2e/support/app-server.ts';
import { postgresInstalled, startPostgresCluster, type PostgresCluster } from '../support/postgres-cluster.ts';
import { until } from '../../server/test/until.ts';
import { ask, signIn, signedInTraffic, type Answer } from './fault-client.ts';
import { TRUSTED_FOR_MS } from '../../server/modules/events/bus.ts';

const UNAVAILABLE = { error: 'Service Unavailable', message: 'The database is unavailable. Please try again shortly.' };
/** What a signed-in admin's pages read: each one loads the session from the database first. */
const READS = ['/api/auth/me', '/api/agents', '/api/articles?limit=3', '/api/notifications?limit=20'];

const describeIfPostgres = describe.skipIf(!postgresInstalled());

/**
 * A real server process (server/index.ts) on its own PostgreSQL cluster, which is stopped and
 * started again under it while signed-in users keep reading: the process must answer 503 JSON
 * while the database is gone (never a 500, a hang or a crash), and serve again by itself, without
 * a restart, once it is back. Agent workers run in the same process (pg-boss polls throughout).
 */
describeIfPostgres('the server while PostgreSQL goes away and comes back', () => {
  let cluster: PostgresCluster;
  let server: AppServer;
  let exitCode: number | null | undefined;
  const exited = () => exitCode !== undefined;

  beforeAll(async () => {
    cluster = await startPostgresCluster();
    server = await startAppServer({ env: { DATABASE_URL: cluster.url, MARKET_DATA: 'simulated', DISPATCH_INTERVAL_MS: '200' } });
    server.child.once('exit', (code, signal) => (exitCode = code ?? (signal ? -1 : null)));
  });
  afterAll(async () => {
    await server?.stop();
    cluster?.stop();
  });

  it.each(['fast', 'immediate'] as const)('pg_ctl stop -m %s: 503 JSON during the outage, the same process serves again after', async (mode) => {
    const pid = server.pid;
    const session = await signIn(server.url);
    const agentId = await createAgent(server.url, session);
    const traffic = signedInTraffic(server.url, { cookie: session.cookie }, READS);
    await until(async () => traffic.answers.filter((a) => a.status === 200).length, (n) => n >= 20);

    await cluster.halt(mode);
    const downFrom = Date.now();
    // Answers to requests sent from here until the restart: all 503 JSON, within the hang limit.
    await until(async () => traffic.answers.filter((a) => a.sentAt > downFrom).length, (n) => n >= 40);
    const health = await ask(server.url, '/api/health');
    const signInDown = await ask(server.url, '/api/auth/local/login', {
      method: 'POST',
      headers: { 'content-type': 'application/json', origin: server.url },
      body: JSON.stringify({ email: 'someone@example.com', name: 'Someone' }),
    });
    const runDown = await ask(server.url, `/api/agents/${agentId}/run`, { method: 'POST', headers: session });
    const downUntil = Date.now();
    await cluster.resume();

    // Back: the health check turns ok by itself, and every read after that answers 200.
    await until(() => ask(server.url, '/api/health'), (a) => exited() || a.status === 200, 20_000);
    expect(exitCode, `the server process exited; its last words:\n${server.output().slice(-4000)}`).toBeUndefined();
    const upFrom = Date.now();
    await until(async () => traffic.answers.filter((a) => a.sentAt > upFrom).length, (n) => n >= 40);
    const answers = await traffic.stop();

    const problems = (list: Answer[], ok: (a: Answer) => boolean) => list.filter((a) => !ok(a)).map((a) => `${a.path}: ${a.status} ${a.error ?? a.body.slice(0, 200)}`);
    // Throughout: an answer every time, and never a 500.
    expect(problems(answers, (a) => a.status === 200 || a.status === 503)).toEqual([]);
    const down = answers.filter((a) => a.sentAt > downFrom && a.sentAt < downUntil);
    // A process trusts its caches (the session, the owner's lists) until its LISTEN connection is
    // known lost or TRUSTED_FOR_MS after the last heartbeat echo (docs/decisions/0049): in that
    // window it may answer a read from memory, and the answer is still true, since a stopped
    // database commits nothing. Only such an answer (the path's last 200 before the stop, word for
    // word) is taken in that window; everything else must be 503 JSON.
    const lastBefore = new Map(answers.filter((a) => a.sentAt < downFrom && a.status === 200).map((a) => [a.path, a.body] as const));
    const stillTrueFromMemory = (a: Answer) => a.status === 200 && a.sentAt - downFrom <= TRUSTED_FOR_MS && lastBefore.get(a.path) === a.body;
    expect(problems(down, (a) => (a.status === 503 && isUnavailableJson(a.body)) || stillTrueFromMemory(a))).toEqual([]);
    expect(down.filter((a) => a.status === 503).length, 'the outage is answered 503').toBeGreaterThan(0);
    expect(problems(answers.filter((a) => a.sentAt > upFrom), (a) => a.status === 200)).toEqual([]);
    expect(health.status).toBe(503);
    expect(JSON.parse(health.body)).toMatchObject({ status: 'unavailable', error: 'Service Unavailable' });
    expect(signInDown.status).toBe(503);
    expect(runDown.status).toBe(503);

    // The same process, and it works end to end: a new sign-in, the old session, an agent run
    // through the job queue and a worker.
    expect(exitCode).toBeUndefined();
    expect(server.child.pid).toBe(pid);
    const fresh = await signIn(server.url, `after-${mode}@example.com`);
    expect((await ask(server.url, '/api/auth/me', { headers: { cookie: fresh.cookie } })).body).toContain(`after-${mode}@example.com`);
    expect((await ask(server.url, `/api/agents/${agentId}/run`, { method: 'POST', headers: session })).status).toBe(202);
    const runs = await until(
      async () => JSON.parse((await ask(server.url, `/api/agents/${agentId}/runs`, { headers: session })).body) as Array<{ status: string }>,
      (list) => list.some((r) => r.status === 'success'),
      20_000,
    );
    expect(runs.filter((r) => r.status === 'success')).toHaveLength(1);
  }, 50_000);
});

function isUnavailableJson(body: string): boolean {
  try {
    return JSON.stringify(JSON.parse(body)) === JSON.stringify(UNAVAILABLE);
  } catch {
    return false;
  }
}

/** A paused stock scanner on simulated data: it runs only when asked to. */
async function createAgent(url: string, session: Record<string, string>): Promise<string> {
  const template = findTemplate('stock-market-scanner')!;
  const res = await ask(url, '/api/agents', {
    method: 'POST',
    headers: { ...session, 'content-type': 'application/json' },
    body: JSON.stringify({
      templateId: template.id,
      name: 'Outage scanner',
      config: defaultAgentConfig(template),
    }),
  });
  if (res.status !== 201) throw new Error(`creating the agent answered ${res.status}: ${res.body}`);
  return (JSON.parse(res.body) as { id: string }).id;
}
