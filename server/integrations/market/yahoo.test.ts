import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import getCrumb from 'yahoo-finance2/lib/getCrumb';
import { ExtendedCookieJar } from 'yahoo-finance2/lib/cookieJar';
import { MARKET_FAILURES, TIMEFRAME_MS, type TCandle } from '../../../contracts/market.ts';
import { FAKE_CRUMB, startFakeYahoo, type FakeYahoo } from '../../../tests/fakes/yahoo.ts';
import type { MarketConfig } from '../../config.ts';
import { MarketDataError } from './candle-source.ts';
import { ProviderHttpError } from './policy.ts';
import { createYahooSource, yahooFetch } from './yahoo.ts';

/** A Wednesday afternoon, market open: the fake serves candles up to here. */
const NOW = new Date('2024-03-06T18:05:00Z');

let fake: FakeYahoo;
beforeAll(async () => {
  // Yahoo's clock is the test's: its intraday limits count back from NOW.
  fake = await startFakeYahoo({ now: () => NOW.getTime() });
});
afterAll(() => fake.close());
afterEach(() => fake.reset());
const DAY = 86_400_000;

function source(overrides: Partial<MarketConfig> = {}) {
  const config: MarketConfig = { mode: 'live', baseUrls: { yahoo: fake.baseUrl }, whaleAlert: { apiKey: null, minUsd: 1 }, timeoutMs: 3_000, retries: 2, ...overrides };
  return createYahooSource(config, { now: () => NOW, backoffMs: 5 });
}
const signal = () => new AbortController().signal;

/** What the fake sent for the source's last chart request, read straight from the fake. */
async function rawRows(): Promise<Array<{ time: number; open: number | null; high: number | null; low: number | null; close: number | null; volume: number | null }>> {
  const last = fake.requests().filter((r) => r.path.startsWith('/v8/finance/chart/')).at(-1)!;
  const response = await fetch(`${fake.baseUrl}${last.path}?${new URLSearchParams(last.query)}`);
  const body = (await response.json()) as { chart: { result: Array<{ timestamp: number[]; indicators: { quote: Array<Record<string, Array<number | null>>> } }> } };
  const result = body.chart.result[0]!;
  const q = result.indicators.quote[0]!;
  return result.timestamp.map((t, i) => ({ time: t * 1000, open: q.open![i]!, high: q.high![i]!, low: q.low![i]!, close: q.close![i]!, volume: q.volume![i]! }));
}

describe('candles', () => {
  it('parses daily candles, drops the null (halted) rows and stamps days at 00:00 UTC', async () => {
    const candles = await source().fetchCandles({ symbol: 'AAPL', timeframe: '1d', limit: 1_000 }, signal());
    const rows = await rawRows();
    const complete = rows.filter((r) => r.close !== null);
    expect(rows.length).toBeGreaterThan(complete.length); // the fake did send nulls
    expect(candles).toEqual(complete.map((r) => ({ ...r, time: Math.floor(r.time / DAY) * DAY })));
    expect(candles.at(-1)!.time).toBeLessThanOrEqual(NOW.getTime());
    expect(fake.requests().at(-1)!.query).toMatchObject({ interval: '1d', includePrePost: 'false' });
  });

  it('returns the last `limit` hourly candles', async () => {
    const candles = await source().fetchCandles({ symbol: 'MSFT', timeframe: '1h', limit: 10 }, signal());
    expect(candles).toHaveLength(10);
    expect(fake.requests().at(-1)!.query.interval).toBe('60m');
    const complete = (await rawRows()).filter((r) => r.close !== null);
    expect(candles).toEqual(complete.slice(-10));
    expect(candles.every((c) => c.time <= NOW.getTime())).toBe(true);
  });

  it('merges 60m candles into 4h candles on the 4h grid', async () => {
    const FOUR = TIMEFRAME_MS['4h'];
    const candles = await source().fetchCandles({ symbol: 'TSLA', timeframe: '4h', limit: 6 }, signal());
    expect(candles).toHaveLength(6);
    const hours = (await rawRows()).filter((r) => r.close !== null) as TCandle[];
    for (const c of candles) {
      expect(c.time % FOUR).toBe(0);
      const inBucket = hours.filter((h) => h.time >= c.time && h.time < c.time + FOUR);
      expect(c.open).toBe(inBucket[0]!.open);
      expect(c.close).toBe(inBucket.at(-1)!.close);
      expect(c.high).toBe(Math.max(...inBucket.map((h) => h.high)));
      expect(c.volume).toBe(inBucket.reduce((sum, h) => sum + h.volume, 0));
    }
  });

  it('fails at once for an unknown symbol; Yahoo\'s description goes to the log only', async () => {
    const err = (await source().fetchCandles({ symbol: 'NOPE', timeframe: '1d', limit: 5 }, signal()).catch((e: unknown) => e)) as MarketDataError;
    expect(err).toBeInstanceOf(MarketDataError);
    expect(err.failure).toBe('unknown-symbol');
    expect(err.message).toBe(MARKET_FAILURES['unknown-symbol']);
    expect(err.logCause).toMatchObject({ status: 404, detail: 'Yahoo Finance does not know the symbol NOPE', body: expect.stringContaining('No data found, symbol may be delisted') });
    expect(fake.requests()).toHaveLength(1);
  });
});

/** Yahoo's words, distinctive enough that finding them anywhere is a leak. */
const PROVIDER_TEXT = 'Yahoo says: call desk 7QX-canary';

describe('failures: one kind each, Yahoo\'s words for the log only', () => {
  it.each([
    ['unknown-symbol', 'unknown-symbol'],
    ['bad-request', 'provider-error'],
    ['429', 'rate-limited'],
    ['500', 'unavailable'],
  ] as const)('Yahoo answering %s: %s', async (fault, kind) => {
    fake.setFault(fault);
    fake.setErrorText(PROVIDER_TEXT);
    const err = (await source({ retries: 1 }).fetchCandles({ symbol: 'AAPL', timeframe: '1d', limit: 5 }, signal()).catch((e: unknown) => e)) as MarketDataError;
    expect(err).toBeInstanceOf(MarketDataError);
    expect(err.failure).toBe(kind);
    expect(err.message).toBe(MARKET_FAILURES[kind]);
    expect(JSON.stringify(err.logCause)).toContain('7QX-canary');
  });

  it('Yahoo unreachable (nothing listening): unreachable, after the retries', async () => {
    const err = (await source({ retries: 1, baseUrls: { yahoo: 'http://127.0.0.1:9' } })
      .fetchCandles({ symbol: 'AAPL', timeframe: '1d', limit: 5 }, signal())
      .catch((e: unknown) => e)) as MarketDataError;
    expect(err).toMatchObject({ failure: 'unreachable', message: MARKET_FAILURES.unreachable, logCause: { attempts: 2 } });
  });
});

describe('retries', () => {
  it('retries two 429s, then succeeds', async () => {
    fake.failNext(2, '429');
    const candles = await source().fetchCandles({ symbol: 'AAPL', timeframe: '1d', limit: 5 }, signal());
    expect(candles).toHaveLength(5);
    expect(fake.requests().map((r) => r.outcome)).toEqual([429, 429, 200]);
  });

  it('gives up on a persistent 500 after the retries', async () => {
    fake.setFault('500');
    const err = (await source().fetchCandles({ symbol: 'AAPL', timeframe: '1d', limit: 5 }, signal()).catch((e: unknown) => e)) as MarketDataError;
    expect(err.message).toBe(MARKET_FAILURES.unavailable);
    expect(err.logCause).toMatchObject({ failure: 'unavailable', status: 500, attempts: 3, detail: 'Yahoo Finance is unavailable (HTTP 500, 2 retries)' });
    expect(fake.requests()).toHaveLength(3);
  });

  it('times out quickly when Yahoo hangs', async () => {
    fake.setFault('hang');
    const started = Date.now();
    const err = (await source({ timeoutMs: 150, retries: 1 })
      .fetchCandles({ symbol: 'AAPL', timeframe: '1d', limit: 5 }, signal())
      .catch((e: unknown) => e)) as MarketDataError;
    expect(err).toMatchObject({ failure: 'timeout', message: MARKET_FAILURES.timeout, logCause: { detail: 'Yahoo Finance did not answer in 0.15 s (1 retry)' } });
    expect(Date.now() - started).toBeLessThan(2_000);
    expect(fake.requests()).toHaveLength(2);
  });
});

describe('cookie and crumb', () => {
  it('chart needs no crumb in yahoo-finance2 v4: repeated calls never run the handshake', async () => {
    const src = source();
    for (const symbol of ['AAPL', 'MSFT', 'AAPL']) await src.fetchCandles({ symbol, timeframe: '1d', limit: 5 }, signal());
    expect(fake.crumbFetches()).toBe(0);
    expect(fake.requests().every((r) => r.path.startsWith('/v8/finance/chart/'))).toBe(true);
  });

  it('runs the library’s handshake through our fetch once, then reuses the crumb', async () => {
    const jar = new ExtendedCookieJar();
    const quiet = { info() {}, warn() {}, error() {}, debug() {}, dir() {} };
    const notices = { show() {} } as unknown as Parameters<typeof getCrumb>[4];
    const fetchViaFake = yahooFetch(fake.baseUrl);
    expect(await getCrumb(jar, fetchViaFake, { headers: {} }, quiet, notices)).toBe(FAKE_CRUMB);
    expect(await getCrumb(jar, fetchViaFake, { headers: {} }, quiet, notices)).toBe(FAKE_CRUMB);
    expect(fake.crumbFetches()).toBe(1);
    const paths = fake.requests().map((r) => `${r.path} cookie=${r.cookie}`);
    expect(paths).toEqual(['/quote/AAPL cookie=false', '/v1/test/getcrumb cookie=true']);
  });

  it('refuses the crumb without the cookie', async () => {
    const err = await yahooFetch(fake.baseUrl)('https://query1.finance.yahoo.com/v1/test/getcrumb').catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ProviderHttpError);
    expect((err as ProviderHttpError).status).toBe(401);
  });
});

describe('fixed hosts', () => {
  it('calls only Yahoo’s hosts over https', async () => {
    const yf = yahooFetch(fake.baseUrl);
    await expect(yf('https://example.com/v8/finance/chart/AAPL')).rejects.toThrow(/not one of Yahoo's hosts/);
    await expect(yf('http://query1.finance.yahoo.com/v8/finance/chart/AAPL')).rejects.toThrow(/not one of Yahoo's hosts/);
    await expect(yf('https://query2.finance.yahoo.com.evil.test/x')).rejects.toThrow(/not one of Yahoo's hosts/);
    expect(fake.requests()).toHaveLength(0);
  });
});
