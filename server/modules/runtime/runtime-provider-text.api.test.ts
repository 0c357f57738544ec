import { eq } from 'drizzle-orm';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { defaultAgentConfig, findTemplate, type TAgent, type TAgentConfig, type TAgentRun } from '../../../contracts/agents.ts';
import { MARKET_FAILURES, type TMarketFailure, type TRunResult } from '../../../contracts/market.ts';
import { startFakeExchanges, type FakeExchanges } from '../../../tests/fakes/exchanges.ts';
import { startFakeWhaleAlert, type FakeWhaleAlert } from '../../../tests/fakes/whale-alert.ts';
import { startFakeYahoo, type FakeYahoo } from '../../../tests/fakes/yahoo.ts';
import { agentRuns } from '../../db/schema.ts';
import { capturingLogger } from '../../test/secret-scan.ts';
import { createTestApp, type TestApp } from '../../test/test-app.ts';
import { startTestWorkers } from '../../test/test-workers.ts';
import { until } from '../../test/until.ts';
import type { Workers } from './workers.ts';

/**
 * Issue 13: a market provider's own words (an error body, a library's message quoting it) never
 * reach a user. Each provider fake answers its real error format with PROVIDER_TEXT where its
 * message goes; the run records one fixed sentence per kind of failure, and the log keeps what
 * the provider said next to the run's and the agent's ids.
 */
const PROVIDER_TEXT = 'Call our desk at +1 555 0100, ticket 7QX-canary';
const CANARY = '7QX-canary';

type Fakes = { exchanges: FakeExchanges; yahoo: FakeYahoo; whale: FakeWhaleAlert };
type Case = {
  name: string;
  templateId: 'crypto-market-monitor' | 'stock-market-scanner';
  parameters: Record<string, unknown>;
  /** Makes the providers fail (their error texts say PROVIDER_TEXT). */
  arrange: (fakes: Fakes) => void;
  /** Each watched market's failure, in the run's order. */
  expected: Array<{ symbol: string; source: string; failure: TMarketFailure }>;
  /** Whether the provider had words to say (a hang or a closed port has none). */
  providerSpoke: boolean;
};

const crypto = (exchanges: string[]) => ({ exchanges, token: 'BTC', timeframe: '1min', includeOnChainMetrics: false, walletTracking: false });
const stocks = (symbols: string) => ({ symbols, timeframe: 'daily' });

const CASES: Case[] = [
  {
    name: 'Binance refuses a pair it does not list (-1121)',
    templateId: 'crypto-market-monitor',
    parameters: crypto(['Binance']),
    arrange: ({ exchanges }) => exchanges.setFault('binance', 'unknown-symbol'),
    expected: [{ symbol: 'BTC/USDT', source: 'binance', failure: 'unknown-symbol' }],
    providerSpoke: true,
  },
  {
    name: 'Binance refuses a malformed request (-1100)',
    templateId: 'crypto-market-monitor',
    parameters: crypto(['Binance']),
    arrange: ({ exchanges }) => exchanges.setFault('binance', 'bad-request'),
    expected: [{ symbol: 'BTC/USDT', source: 'binance', failure: 'provider-error' }],
    providerSpoke: true,
  },
  {
    name: 'Kraken rate limits (429) and Coinbase fails (500)',
    templateId: 'crypto-market-monitor',
    parameters: crypto(['Coinbase', 'Kraken']),
    arrange: ({ exchanges }) => {
      exchanges.setFault('kraken', '429');
      exchanges.setFault('coinbase', '500');
    },
    expected: [
      { symbol: 'BTC/USD', source: 'coinbase', failure: 'unavailable' },
      { symbol: 'BTC/USD', source: 'kraken', failure: 'rate-limited' },
    ],
    providerSpoke: true,
  },
  {
    name: 'KuCoin hangs; nothing listens where HTX should be',
    templateId: 'crypto-market-monitor',
    parameters: crypto(['KuCoin', 'Huobi']),
    arrange: ({ exchanges }) => exchanges.setFault('kucoin', 'hang'),
    expected: [
      { symbol: 'BTC/USDT', source: 'kucoin', failure: 'timeout' },
      { symbol: 'BTC/USDT', source: 'htx', failure: 'unreachable' },
    ],
    providerSpoke: false,
  },
  {
    name: 'Yahoo does not know a symbol (404 with its description)',
    templateId: 'stock-market-scanner',
    parameters: stocks('NOPE'),
    arrange: () => {},
    expected: [{ symbol: 'NOPE', source: 'yahoo', failure: 'unknown-symbol' }],
    providerSpoke: true,
  },
  {
    name: 'Yahoo refuses the request (400 with its description)',
    templateId: 'stock-market-scanner',
    parameters: stocks('AAPL'),
    arrange: ({ yahoo }) => yahoo.setFault('bad-request'),
    expected: [{ symbol: 'AAPL', source: 'yahoo', failure: 'provider-error' }],
    providerSpoke: true,
  },
  {
    name: 'Yahoo rate limits (429, plain text)',
    templateId: 'stock-market-scanner',
    parameters: stocks('MSFT'),
    arrange: ({ yahoo }) => yahoo.setFault('429'),
    expected: [{ symbol: 'MSFT', source: 'yahoo', failure: 'rate-limited' }],
    providerSpoke: true,
  },
];

describe('a provider’s words never reach a user, and are in the log with the run', () => {
  const { logger, lines } = capturingLogger();
  let fakes: Fakes;
  let t: TestApp;
  let admin: string;
  let workers: Workers;

  beforeAll(async () => {
    // The exchanges' candles follow the app's clock, which moves a minute per case: otherwise the
    // one-minute candles would fall behind the runs and read as stale (issue 15).
    const clock = () => (t ? t.now().getTime() : Date.now());
    const [exchanges, yahoo, whale] = await Promise.all([startFakeExchanges({ now: clock }), startFakeYahoo(), startFakeWhaleAlert()]);
    fakes = { exchanges, yahoo, whale };
    t = await createTestApp({
      logger,
      env: {
        ...exchanges.env,
        ...yahoo.env,
        // A port nobody listens on: the exchange cannot be reached.
        HTX_BASE_URL: 'http://127.0.0.1:9/htx',
        WHALE_ALERT_API_KEY: whale.apiKey,
        WHALE_ALERT_BASE_URL: whale.baseUrl,
        ADMIN_EMAILS: 'admin@example.com',
        MARKET_DATA: 'live',
        MARKET_RETRIES: '1',
        MARKET_TIMEOUT_MS: '400',
        DISPATCH_INTERVAL_MS: '50',
      },
    });
    admin = await t.signIn('admin@example.com', 'Admin');
    workers = await startTestWorkers(t, { logger });
  });
  afterEach(() => {
    // Runs of one minute share their fetches (a failure too): each case gets a minute of its own.
    t.advanceTime(60_000);
    fakes.exchanges.reset();
    fakes.yahoo.reset();
    fakes.whale.setFault('none');
    fakes.whale.setErrorText(null);
  });
  afterAll(async () => {
    await workers?.stop();
    await t?.close();
    await Promise.all([fakes?.exchanges.close(), fakes?.yahoo.close(), fakes?.whale.close()]);
  });

  /** Creates the agent, runs it now and waits for the run to finish. */
  async function runOnce(templateId: string, parameters: Record<string, unknown>): Promise<{ agent: TAgent; run: TAgentRun; body: string }> {
    const base = defaultAgentConfig(findTemplate(templateId)!);
    const config: TAgentConfig = { ...base, notifications: { ...base.notifications, email: false }, parameters: { ...base.parameters, ...parameters } as TAgentConfig['parameters'] };
    const created = await t.request({ method: 'POST', url: '/api/agents', cookie: admin, payload: { templateId, name: `provider text ${templateId}`, config } });
    expect(created.statusCode).toBe(201);
    const agent = created.json<TAgent>();
    expect((await t.request({ method: 'POST', url: `/api/agents/${agent.id}/run`, cookie: admin })).statusCode).toBe(202);
    const read = () => t.request({ url: `/api/agents/${agent.id}/runs`, cookie: admin });
    const done = await until(
      async () => (await read()).body,
      (body) => {
        const [run] = JSON.parse(body) as TAgentRun[];
        return run?.status === 'success' || run?.status === 'failure';
      },
      20_000,
    );
    return { agent, run: (JSON.parse(done) as TAgentRun[])[0]!, body: done };
  }

  /** Everything a user can be shown about the agent and its runs, and the stored rows. */
  async function everythingShown(agentId: string): Promise<string> {
    const agent = await t.request({ url: `/api/agents/${agentId}`, cookie: admin });
    const list = await t.request({ url: '/api/agents', cookie: admin });
    const bell = await t.request({ url: '/api/notifications', cookie: admin });
    const rows = await t.database.db.select().from(agentRuns).where(eq(agentRuns.agentId, agentId));
    return [agent.body, list.body, bell.body, JSON.stringify(rows)].join('\n');
  }

  it.each(CASES)('$name', async ({ templateId, parameters, arrange, expected, providerSpoke }) => {
    fakes.exchanges.setErrorText('binance', PROVIDER_TEXT);
    for (const id of ['coinbase', 'kraken', 'kucoin', 'htx'] as const) fakes.exchanges.setErrorText(id, PROVIDER_TEXT);
    fakes.yahoo.setErrorText(PROVIDER_TEXT);
    arrange(fakes);
    const linesBefore = lines.length;

    const { agent, run, body } = await runOnce(templateId, parameters);

    // Nothing the provider said, anywhere a user can look.
    expect(body).not.toContain(CANARY);
    expect(await everythingShown(agent.id)).not.toContain(CANARY);

    // What the user reads: each market's kind and its sentence, the run's error made of them.
    expect(run.status).toBe('failure');
    const result = run.result as TRunResult;
    expect(result.markets.map((m) => ({ symbol: m.symbol, source: m.source, failure: m.ok ? 'ok' : m.failure, error: m.ok ? null : m.error }))).toEqual(
      expected.map((e) => ({ ...e, error: MARKET_FAILURES[e.failure] })),
    );
    expect(run.error).toBe(expected.map((e) => `${e.symbol} (${e.source}): ${MARKET_FAILURES[e.failure]}`).join(' '));

    // What the operator reads: the provider's words, with the run and the agent they belong to.
    const runLine = lines
      .slice(linesBefore)
      .map((line) => JSON.parse(line) as { msg: string; runId?: number; agentId?: string; failures?: Array<{ market: string; failure: string }> })
      .find((line) => line.msg === 'agent run could not read some of its data' && line.runId === run.id);
    expect(runLine, 'a log line for the run').toBeDefined();
    expect(runLine!.agentId).toBe(agent.id);
    expect(runLine!.failures!.map((f) => f.failure).sort()).toEqual(expected.map((e) => e.failure).sort());
    if (providerSpoke) expect(JSON.stringify(runLine)).toContain(CANARY);
  });

  it('an on-chain source that fails shows its sentence in the rule; Whale Alert’s words are in the log', async () => {
    fakes.whale.setFault('500');
    fakes.whale.setErrorText(PROVIDER_TEXT);
    const linesBefore = lines.length;
    const { agent, run, body } = await runOnce('crypto-market-monitor', { ...crypto(['Binance']), includeOnChainMetrics: true });

    expect(run.status).toBe('success');
    const [market] = (run.result as TRunResult).markets;
    if (!market?.ok) throw new Error(`expected Binance to answer: ${JSON.stringify(market)}`);
    expect(market.rules.find((r) => r.name === 'Whale transaction')).toMatchObject({
      status: 'insufficient data',
      detail: `on-chain source failed: ${MARKET_FAILURES.unavailable}`,
    });
    expect(body).not.toContain(CANARY);
    expect(await everythingShown(agent.id)).not.toContain(CANARY);
    const runLine = lines.slice(linesBefore).find((line) => line.includes('"msg":"agent run could not read some of its data"') && line.includes(`"runId":${run.id}`));
    expect(runLine).toContain(CANARY);
    expect(runLine).toContain(agent.id);
  });
});
