import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { MARKET_FAILURES } from '../../../contracts/market.ts';
import { startFakeWhaleAlert, whaleAlertTransaction, type FakeWhaleAlert } from '../../../tests/fakes/whale-alert.ts';
import type { MarketConfig } from '../../config.ts';
import { OnChainError } from './onchain-source.ts';
import { createWhaleAlertSource } from './whale-alert.ts';

let fake: FakeWhaleAlert;
beforeAll(async () => {
  fake = await startFakeWhaleAlert();
});
afterAll(() => fake.close());
beforeEach(() => {
  fake.setFault('none');
  fake.setErrorText(null);
  fake.setTransactions([]);
});

function market(overrides: Partial<MarketConfig> = {}, apiKey: string | null = fake.apiKey): MarketConfig {
  return {
    mode: 'live',
    baseUrls: { whaleAlert: fake.baseUrl },
    whaleAlert: { apiKey, minUsd: 1_000_000 },
    timeoutMs: 2_000,
    retries: 2,
    ...overrides,
  };
}

function source(overrides: Partial<MarketConfig> = {}, apiKey?: string | null) {
  const created = createWhaleAlertSource(market(overrides, apiKey === undefined ? fake.apiKey : apiKey));
  if (!created) throw new Error('expected a source');
  return created;
}

const minutesAgo = (m: number) => new Date(Date.now() - m * 60_000);
const newRequests = (before: number) => fake.requests().slice(before);

/** The OnChainError a call rejects with (fails the test if it resolves or throws anything else). */
async function failure(promise: Promise<unknown>): Promise<OnChainError> {
  const err = await promise.then(
    () => expect.fail('expected the call to fail'),
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(OnChainError);
  return err as OnChainError;
}

describe('createWhaleAlertSource', () => {
  it('is null without an API key, so the caller can say "not configured"', () => {
    expect(createWhaleAlertSource(market({}, null))).toBeNull();
    expect(createWhaleAlertSource(market({}, ''))).toBeNull();
  });

  it('asks for the token, the minimum value and the start time, and maps the answer', async () => {
    const now = Math.floor(Date.now() / 1000);
    fake.setTransactions([
      whaleAlertTransaction({
        hash: 'aaa',
        timestamp: now - 120,
        amount: 150,
        amount_usd: 9_750_000.5,
        from: { address: 'bc1qsender', owner: '', owner_type: 'unknown' },
        to: { address: 'bc1qexchange', owner: 'binance', owner_type: 'exchange' },
      }),
      whaleAlertTransaction({ hash: 'small', timestamp: now - 100, amount_usd: 600_000 }),
      whaleAlertTransaction({ hash: 'eth', symbol: 'eth', blockchain: 'ethereum', timestamp: now - 90 }),
      whaleAlertTransaction({ hash: 'old', timestamp: now - 1200 }),
    ]);
    const before = fake.requests().length;
    const since = minutesAgo(10);

    const found = await source().whaleTransactions('BTC', since, new AbortController().signal);

    expect(found).toEqual([
      {
        hash: 'aaa',
        blockchain: 'bitcoin',
        symbol: 'BTC',
        amount: 150,
        amountUsd: 9_750_000.5,
        from: 'bc1qsender',
        to: 'binance',
        time: new Date((now - 120) * 1000).toISOString(),
      },
    ]);
    const [request, ...more] = newRequests(before);
    expect(more).toEqual([]);
    expect(request!.path).toBe('/v1/transactions');
    expect(request!.query).toMatchObject({
      api_key: fake.apiKey,
      min_value: '1000000',
      start: String(Math.floor(since.getTime() / 1000)),
      currency: 'btc',
    });
  });

  it('answers an empty list when nothing matched (the API then sends no transactions array)', async () => {
    expect(await source().whaleTransactions('eth', minutesAgo(5), new AbortController().signal)).toEqual([]);
  });

  it('clamps a start older than an hour, which the free plan refuses', async () => {
    const before = fake.requests().length;
    const nowSeconds = Math.floor(Date.now() / 1000);
    await source().whaleTransactions('btc', minutesAgo(180), new AbortController().signal);
    const start = Number(newRequests(before)[0]!.query.start);
    expect(start).toBeGreaterThan(nowSeconds - 3600);
    expect(start).toBeLessThan(nowSeconds - 3000);
  });

  it('follows the cursor when a page is full', async () => {
    const now = Math.floor(Date.now() / 1000);
    fake.setTransactions(Array.from({ length: 130 }, (_, i) => whaleAlertTransaction({ hash: `h${i}`, timestamp: now - 1000 + i })));
    const before = fake.requests().length;
    const found = await source().whaleTransactions('btc', minutesAgo(30), new AbortController().signal);
    expect(found.map((t) => t.hash)).toEqual(Array.from({ length: 130 }, (_, i) => `h${i}`));
    const requests = newRequests(before);
    expect(requests).toHaveLength(2);
    expect(requests[0]!.query.cursor).toBeUndefined();
    expect(requests[1]!.query.cursor).toBe('fake-100');
  });

  it('reports a rejected key clearly, without retrying and without the key anywhere', async () => {
    const before = fake.requests().length;
    const err = await failure(source({}, 'wrong-key-123456').whaleTransactions('btc', minutesAgo(5), new AbortController().signal));
    expect(err.failure).toBe('key-rejected');
    expect(err.message).toBe(MARKET_FAILURES['key-rejected']);
    expect(err.logCause).toMatchObject({
      status: 401,
      url: `${fake.baseUrl}/v1/transactions`,
      providerMessage: 'invalid api_key',
      detail: 'The Whale Alert API key was rejected; check WHALE_ALERT_API_KEY',
    });
    const everything = `${err.message} ${err.stack} ${JSON.stringify(err.logCause)}`;
    expect(everything).not.toContain('wrong-key-123456');
    expect(everything).not.toContain('api_key=');
    expect(newRequests(before)).toHaveLength(1);
  });

  it('retries after a 429 and then succeeds', async () => {
    fake.setTransactions([whaleAlertTransaction({ hash: 'after-429' })]);
    fake.setFault('429', { times: 1 });
    const before = fake.requests().length;
    const found = await source().whaleTransactions('btc', minutesAgo(5), new AbortController().signal);
    expect(found.map((t) => t.hash)).toEqual(['after-429']);
    expect(newRequests(before)).toHaveLength(2);
  });

  it('waits as long as Retry-After says before retrying', async () => {
    fake.setFault('429', { times: 1, retryAfterSeconds: 1 });
    const started = performance.now();
    await source().whaleTransactions('btc', minutesAgo(5), new AbortController().signal);
    expect(performance.now() - started).toBeGreaterThanOrEqual(950);
  });

  it('gives up on a persistent 429 as rate limited; what Whale Alert said goes to the log only', async () => {
    fake.setFault('429');
    fake.setErrorText('usage limit reached for key tier 7QX-canary');
    const err = await failure(source({ retries: 1 }).whaleTransactions('btc', minutesAgo(5), new AbortController().signal));
    expect(err.failure).toBe('rate-limited');
    expect(err.message).toBe(MARKET_FAILURES['rate-limited']);
    expect(err.logCause).toMatchObject({ detail: 'Whale Alert is rate limiting requests (2 attempts); try again shortly', providerMessage: 'usage limit reached for key tier 7QX-canary' });
  });

  it('fails after the configured retries when the API keeps answering 500', async () => {
    fake.setFault('500');
    const before = fake.requests().length;
    const started = performance.now();
    const err = await failure(source({ retries: 2 }).whaleTransactions('btc', minutesAgo(5), new AbortController().signal));
    expect(err.failure).toBe('unavailable');
    expect(err.message).toBe(MARKET_FAILURES.unavailable);
    expect(err.logCause).toMatchObject({ status: 500, attempts: 3, detail: 'Whale Alert is unavailable right now (3 attempts)' });
    expect(newRequests(before)).toHaveLength(3);
    // Backoff 250 ms, then 500 ms.
    expect(performance.now() - started).toBeGreaterThanOrEqual(700);
  });

  it('times out a request that never gets an answer, retries, then says how long it waited', async () => {
    fake.setFault('hang');
    const before = fake.requests().length;
    const err = await failure(source({ timeoutMs: 200, retries: 1 }).whaleTransactions('btc', minutesAgo(5), new AbortController().signal));
    expect(err.failure).toBe('timeout');
    expect(err.message).toBe(MARKET_FAILURES.timeout);
    expect(err.logCause.detail).toBe('Whale Alert did not answer within 200 ms (2 attempts)');
    expect(newRequests(before)).toHaveLength(2);
  });

  it("stops at once when the caller's signal aborts", async () => {
    fake.setFault('hang');
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 100);
    const started = performance.now();
    const err = await failure(source({ timeoutMs: 10_000 }).whaleTransactions('btc', minutesAgo(5), controller.signal));
    expect(err.failure).toBe('cancelled');
    expect(performance.now() - started).toBeLessThan(2_000);
  });

  it("counts the caller's deadline as a timeout, not a cancellation", async () => {
    fake.setFault('hang');
    const err = await failure(source({ timeoutMs: 10_000 }).whaleTransactions('btc', minutesAgo(5), AbortSignal.timeout(100)));
    expect(err.failure).toBe('timeout');
  });

  it('cannot reach a closed port: unreachable, retried', async () => {
    const closed = source({ retries: 1, baseUrls: { whaleAlert: 'http://127.0.0.1:9' } });
    const err = await failure(closed.whaleTransactions('btc', minutesAgo(5), new AbortController().signal));
    expect(err.failure).toBe('unreachable');
    expect(err.logCause).toMatchObject({ attempts: 2, detail: 'Whale Alert could not be reached (2 attempts)' });
  });

  it('reports a refused request with its status', async () => {
    const wrongPath = source({ baseUrls: { whaleAlert: `${fake.baseUrl}/nope` } });
    const err = await failure(wrongPath.whaleTransactions('btc', minutesAgo(5), new AbortController().signal));
    expect(err.failure).toBe('provider-error');
    expect(err.message).toBe(MARKET_FAILURES['provider-error']);
    expect(err.logCause).toMatchObject({ status: 404, detail: 'Whale Alert refused the request (HTTP 404)' });
  });

  it('skips a transaction it cannot read and keeps the others', async () => {
    const { hash: _hash, ...noHash } = whaleAlertTransaction();
    // Deliberately malformed wire data: the type says every transaction has a hash.
    fake.setTransactions([noHash as unknown as ReturnType<typeof whaleAlertTransaction>, whaleAlertTransaction({ hash: 'good' })]);
    const found = await source().whaleTransactions('btc', minutesAgo(5), new AbortController().signal);
    expect(found.map((t) => t.hash)).toEqual(['good']);
  });
});
