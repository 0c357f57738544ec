import { spawn } from 'node:child_process';
import { eq } from 'drizzle-orm';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { defaultAgentConfig, findTemplate, type TAgent, type TAgentConfig, type TAgentRun } from '../../../contracts/agents.ts';
import { MARKET_FAILURES, type TRunResult } from '../../../contracts/market.ts';
import type { TNotificationList } from '../../../contracts/notifications.ts';
import { agentRuns, notifications } from '../../db/schema.ts';
import { createTestApp, type TestApp } from '../../test/test-app.ts';
import { startTestWorkers } from '../../test/test-workers.ts';
import { until } from '../../test/until.ts';
import { startFakeExchanges, type FakeExchanges } from '../../../tests/fakes/exchanges.ts';
import { startSmtpCatcher, type SmtpCatcher } from '../../../tests/fakes/smtp-catcher.ts';
import { ROOT_DIR, stopChild } from '../../../tests/e2e/support/app-server.ts';
import type { Workers } from './workers.ts';

const CRYPTO = 'crypto-market-monitor';
const onPostgres = process.env.TEST_DATABASE === 'postgres';

function cryptoConfig(exchanges: string[], alerts: Partial<TAgentConfig['notifications']> = {}): TAgentConfig {
  const template = findTemplate(CRYPTO)!;
  const { parameters } = defaultAgentConfig(template);
  return {
    schedule: { frequency: 'realtime', daysActive: ['Monday', 'Tuesday', 'Wednesday', 'Thursday', 'Friday', 'Saturday', 'Sunday'], activeHours: { start: '00:00', end: '23:59' }, timeZone: 'UTC' },
    notifications: { ...template.defaultConfig.notifications, email: false, ...alerts },
    parameters: { ...parameters, exchanges, timeframe: '1min' },
  };
}


/** Agents on live market data through the exchange fakes: faults, retries, and a killed worker. */
describe('agents runtime against failing exchanges', () => {
  let exchanges: FakeExchanges;
  let smtp: SmtpCatcher;
  let t: TestApp;
  let admin: string;
  let workers: Workers | null = null;

  beforeAll(async () => {
    exchanges = await startFakeExchanges();
    smtp = await startSmtpCatcher();
    // This process's workers keep the default lease: a 2 s one can lapse on a loaded machine while
    // a run waits its turn for the database, and the run is failed as interrupted. The worker
    // process killed below holds a 2 s lease of its own.
    t = await createTestApp({
      env: { ...exchanges.env, SMTP_URL: smtp.url, EMAIL_RETRIES: '3', EMAIL_RETRY_DELAY_SECONDS: '1', ADMIN_EMAILS: 'admin@example.com', MARKET_DATA: 'live', MARKET_RETRIES: '2', MARKET_TIMEOUT_MS: '400', DISPATCH_INTERVAL_MS: '50', DISPATCH_LOOKAHEAD_MS: '0' },
    });
    admin = await t.signIn('admin@example.com', 'Admin');
  });
  afterEach(async () => {
    await workers?.stop();
    workers = null;
    exchanges.reset();
    smtp.reset();
  });
  afterAll(async () => {
    await t.close();
    await exchanges.close();
    await smtp.close();
  });

  const create = async (config: TAgentConfig): Promise<TAgent> => {
    const res = await t.request({ method: 'POST', url: '/api/agents', cookie: admin, payload: { templateId: CRYPTO, name: 'faulty', config } });
    expect(res.statusCode).toBe(201);
    return res.json();
  };
  const runsOf = async (id: string): Promise<TAgentRun[]> => (await t.request({ url: `/api/agents/${id}/runs`, cookie: admin })).json();
  const runNow = (id: string) => t.request({ method: 'POST', url: `/api/agents/${id}/run`, cookie: admin });

  it('retries an exchange that answers 429, then records a failed run with a clear error', async () => {
    const agent = await create(cryptoConfig(['Binance']));
    workers = await startTestWorkers(t);
    exchanges.setFault('binance', '429');
    expect((await runNow(agent.id)).statusCode).toBe(202);
    const [run] = await until(() => runsOf(agent.id), (runs) => runs[0]?.status === 'failure');
    expect(run!.error).toBe(`BTC/USDT (binance): ${MARKET_FAILURES['rate-limited']}`);
    const market = (run!.result as TRunResult).markets[0]!;
    expect(market).toMatchObject({ ok: false, symbol: 'BTC/USDT', source: 'binance', failure: 'rate-limited', error: MARKET_FAILURES['rate-limited'] });
    // The first try and two retries (of whichever call came first: market list or candles).
    expect(exchanges.requests('binance').filter((r) => r.outcome === 429)).toHaveLength(3);
  });

  it('a hanging exchange times out; the other exchange still answers, so the run succeeds with the failure reported', async () => {
    const agent = await create(cryptoConfig(['Binance', 'Kraken']));
    workers = await startTestWorkers(t);
    exchanges.setFault('kraken', 'hang');
    await runNow(agent.id);
    const [run] = await until(() => runsOf(agent.id), (runs) => runs[0]?.status === 'success' || runs[0]?.status === 'failure');
    expect(run!.status).toBe('success');
    const [binance, kraken] = (run!.result as TRunResult).markets;
    expect(binance).toMatchObject({ ok: true, source: 'binance', simulated: false });
    expect(kraken).toMatchObject({ ok: false, source: 'kraken' });
    if (kraken!.ok) throw new Error('expected a failure');
    expect(kraken).toMatchObject({ failure: 'timeout', error: MARKET_FAILURES.timeout });
  });

  it('recovers from a few 429s within the retries: the run succeeds', async () => {
    const agent = await create(cryptoConfig(['Binance']));
    workers = await startTestWorkers(t);
    exchanges.failNext('binance', 2, '429');
    await runNow(agent.id);
    const [run] = await until(() => runsOf(agent.id), (runs) => runs[0]?.status === 'success' || runs[0]?.status === 'failure');
    expect(run).toMatchObject({ status: 'success', error: null });
  });

  /** Any price move fires: every run raises an alert for each market. */
  const alertOnAnyMove = { email: true, inApp: true, thresholds: [{ type: 'priceChange' as const, value: 0, message: 'Price moved' }] };
  const notificationOf = async (agentId: string) => (await t.database.db.select().from(notifications).where(eq(notifications.agentId, agentId)))[0];

  it('emails an alert through the job queue to the SMTP server', async () => {
    const agent = await create(cryptoConfig(['Binance'], alertOnAnyMove));
    workers = await startTestWorkers(t);
    await runNow(agent.id);
    const [message] = await smtp.waitForMessages(1, 15_000);
    expect(message!.to).toEqual(['admin@example.com']);
    // The runtime titles the alert '<agent>: <type> alert on <market>'; the subject names the agent once.
    expect(message!.subject).toBe('faulty: Price change alert on BTC/USDT on binance');
    expect(message!.text).toContain('Price moved (BTC/USDT on binance:');
    const row = await until(() => notificationOf(agent.id), (n) => n?.emailStatus === 'sent');
    expect(row).toMatchObject({ emailStatus: 'sent', emailAttempts: 1, readAt: null });
  });

  it('an SMTP server that refuses leaves the alert in-app and the email retried until it goes through', async () => {
    smtp.setMode('refuse');
    const agent = await create(cryptoConfig(['Binance'], alertOnAnyMove));
    workers = await startTestWorkers(t);
    await runNow(agent.id);
    const [run] = await until(() => runsOf(agent.id), (runs) => runs[0]?.status === 'success' || runs[0]?.status === 'failure');
    expect(run!.status).toBe('success'); // a failing email never fails the run
    const refused = await until(() => notificationOf(agent.id), (n) => (n?.emailAttempts ?? 0) >= 2, 20_000);
    expect(refused).toMatchObject({ emailStatus: 'pending', readAt: null });
    expect(refused!.emailError).toMatch(/421/);
    expect(smtp.messages()).toHaveLength(0);
    // The user sees the alert in the app (the bell) meanwhile, unread, its email still pending.
    const bell: TNotificationList = (await t.request({ url: '/api/notifications', cookie: admin })).json();
    expect(bell.notifications.filter((n) => n.agentId === agent.id)).toEqual([
      expect.objectContaining({ id: refused!.id, readAt: null, emailStatus: 'pending', message: expect.stringContaining('Price moved') }),
    ]);
    expect(bell.unread).toBeGreaterThanOrEqual(1);

    smtp.setMode('accept');
    const sent = await until(() => notificationOf(agent.id), (n) => n?.emailStatus === 'sent', 20_000);
    expect(sent!.emailAttempts).toBeGreaterThanOrEqual(3);
    expect(smtp.messages()).toHaveLength(1);
  }, 60_000);

  // A worker process stopped as systemd, Ctrl-C or `kill` stop it: only PostgreSQL can be shared
  // between processes. Its runs are not interrupted: they finish, and are recorded as they end.
  it.runIf(onPostgres)('SIGTERM to a worker mid-run: it finishes the run, recorded as it ended (not interrupted), then exits 0', async () => {
    const agent = await create(cryptoConfig(['Binance']));
    // The run's first request to the exchange hangs until its timeout; the retry answers.
    exchanges.failNext('binance', 1, 'hang');
    const worker = spawn(process.execPath, ['server/worker.ts'], {
      cwd: ROOT_DIR,
      stdio: ['ignore', 'ignore', 'pipe'],
      env: {
        ...process.env,
        ...exchanges.env,
        DATABASE_URL: t.config.database.kind === 'postgres' ? t.config.database.url : '',
        MARKET_DATA: 'live',
        MARKET_TIMEOUT_MS: '3000',
        MARKET_RETRIES: '1',
        DISPATCH_INTERVAL_MS: '100',
        LOG_LEVEL: 'info',
      },
    });
    let stderr = '';
    worker.stderr!.on('data', (d: Buffer) => (stderr += d.toString()));
    const exited = new Promise<number | null>((resolve) => worker.once('exit', (code) => resolve(code)));
    try {
      expect((await runNow(agent.id)).statusCode).toBe(202);
      const [running] = await until(() => runsOf(agent.id), (runs) => runs[0]?.status === 'running', 20_000).catch((err: unknown) => {
        throw new Error(`${String(err)}\nworker stderr:\n${stderr}`);
      });
      worker.kill('SIGTERM');
      expect(await exited).toBe(0);
      const [row] = await t.database.db.select().from(agentRuns).where(eq(agentRuns.id, running!.id));
      expect(row).toMatchObject({ status: 'success', error: null });
      expect(row!.endTime).not.toBeNull();
    } finally {
      await stopChild(worker, 1_000);
    }
  }, 60_000);

  // A worker process killed with SIGKILL mid-run: only PostgreSQL can be shared between processes.
  it.runIf(onPostgres)('kill -9 of a worker mid-run leaves an interrupted run, and the next run goes ahead', async () => {
    const agent = await create(cryptoConfig(['Binance']));
    exchanges.setFault('binance', 'hang');
    const worker = spawn(process.execPath, ['server/worker.ts'], {
      cwd: ROOT_DIR,
      stdio: ['ignore', 'ignore', 'pipe'],
      env: {
        ...process.env,
        ...exchanges.env,
        DATABASE_URL: t.config.database.kind === 'postgres' ? t.config.database.url : '',
        MARKET_DATA: 'live',
        MARKET_TIMEOUT_MS: '60000',
        RUN_LEASE_SECONDS: '2',
        DISPATCH_INTERVAL_MS: '100',
        LOG_LEVEL: 'warn',
      },
    });
    let stderr = '';
    worker.stderr!.on('data', (d: Buffer) => (stderr += d.toString()));
    try {
      expect((await runNow(agent.id)).statusCode).toBe(202);
      const [running] = await until(() => runsOf(agent.id), (runs) => runs[0]?.status === 'running', 20_000).catch((err: unknown) => {
        throw new Error(`${String(err)}\nworker stderr:\n${stderr}`);
      });
      worker.kill('SIGKILL');
      await new Promise((resolve) => worker.once('exit', resolve));

      // The surviving side (this process's workers) notices the lapsed lease, and runs the next one.
      exchanges.setFault('binance', 'none');
      workers = await startTestWorkers(t);
      await until(async () => (await t.database.db.select().from(agentRuns).where(eq(agentRuns.id, running!.id)))[0]!, (row) => row.status === 'failure');
      const [interrupted] = await t.database.db.select().from(agentRuns).where(eq(agentRuns.id, running!.id));
      expect(interrupted).toMatchObject({ status: 'failure', error: 'interrupted' });
      await runNow(agent.id);
      const runs = await until(() => runsOf(agent.id), (r) => r.length === 2 && r[0]!.status === 'success');
      expect(runs[1]).toMatchObject({ id: running!.id, status: 'failure', error: 'interrupted' });
    } finally {
      await stopChild(worker, 1_000);
    }
  }, 60_000);
});
