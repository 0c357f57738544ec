import * as ccxt from 'ccxt';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { MARKET_FAILURES, TIMEFRAME_MS } from '../../../contracts/market.ts';
import { fakeCandle, FAKE_PRICES, startFakeExchanges, type FakeExchanges } from '../../../tests/fakes/exchanges.ts';
import type { MarketConfig } from '../../config.ts';
import { MarketDataError } from './candle-source.ts';
import { createCcxtSource, EXCHANGES, exchangeSymbol, overrideApiUrls, type ExchangeSource } from './ccxt-exchange.ts';

let fake: FakeExchanges;
beforeAll(async () => {
  fake = await startFakeExchanges();
});
afterAll(() => fake.close());
afterEach(() => fake.reset());

/** A fresh source per test: ccxt instances are cached per (exchange, base URL, timeout), so tests vary the timeout. */
let seq = 0;
function source(id: ExchangeSource, overrides: Partial<MarketConfig> = {}) {
  const config: MarketConfig = {
    mode: 'live',
    baseUrls: fake.baseUrls,
    whaleAlert: { apiKey: null, minUsd: 1_000_000 },
    timeoutMs: 3_000 + seq++,
    retries: 2,
    ...overrides,
  };
  return createCcxtSource(id, config, { backoffMs: 5, rateLimitMs: 5 });
}

const signal = () => new AbortController().signal;
const HOUR = TIMEFRAME_MS['1h'];

describe('symbols', () => {
  it('pairs a token with the exchange’s usual quote', () => {
    expect(exchangeSymbol('binance', 'btc')).toBe('BTC/USDT');
    expect(exchangeSymbol('kucoin', 'ETH')).toBe('ETH/USDT');
    expect(exchangeSymbol('htx', 'SOL')).toBe('SOL/USDT');
    expect(exchangeSymbol('kraken', 'BTC')).toBe('BTC/USD');
    expect(exchangeSymbol('coinbase', 'BTC')).toBe('BTC/USD');
    expect(exchangeSymbol('binance', 'eth/btc')).toBe('ETH/BTC');
  });
});

describe('API URL override', () => {
  it('points every API group at the base URL and keeps each group’s path', () => {
    const api = {
      public: 'https://api.binance.com/api/v3',
      sapi: 'https://api.binance.com/sapi/v1',
      fapiPublic: 'https://fapi.binance.com/fapi/v1',
      nested: { spot: 'https://{hostname}/', contract: 'https://{hostname}' },
    };
    expect(overrideApiUrls(api, 'http://127.0.0.1:9/binance', 'api.huobi.pro')).toEqual({
      public: 'http://127.0.0.1:9/binance/api/v3',
      sapi: 'http://127.0.0.1:9/binance/sapi/v1',
      fapiPublic: 'http://127.0.0.1:9/binance/fapi/v1',
      nested: { spot: 'http://127.0.0.1:9/binance', contract: 'http://127.0.0.1:9/binance' },
    });
  });

  it.each(Object.keys(EXCHANGES) as ExchangeSource[])('leaves no API group of %s on its real host', (id) => {
    const exchange = new ccxt[EXCHANGES[id].ccxtId]();
    const leaves = (value: unknown): string[] =>
      typeof value === 'string' ? [value] : value && typeof value === 'object' ? Object.values(value).flatMap(leaves) : [];
    const before = leaves(exchange.urls.api);
    const after = leaves(overrideApiUrls(exchange.urls.api, 'http://127.0.0.1:9/x', exchange.hostname));
    expect(after).toHaveLength(before.length);
    for (const url of after) expect(url.startsWith('http://127.0.0.1:9/x')).toBe(true);
  });
});

describe('candles from each exchange (against the fake)', () => {
  it.each([
    ['binance', 'BTCUSDT'],
    ['kraken', 'XXBTZUSD'],
    ['coinbase', 'BTC-USD'],
    ['kucoin', 'BTC-USDT'],
    ['htx', 'btcusdt'],
  ] as const)('%s: loads the markets once and parses BTC candles (market id %s)', async (id, marketId) => {
    const src = source(id);
    const symbol = exchangeSymbol(id, 'BTC');
    const candles = await src.fetchCandles({ symbol, timeframe: '1h', limit: 5 }, signal());

    expect(candles).toHaveLength(5);
    const now = Date.now();
    const current = Math.floor(now / HOUR) * HOUR;
    expect(candles.at(-1)!.time).toBe(current);
    expect(candles.map((c) => c.time)).toEqual([4, 3, 2, 1, 0].map((n) => current - n * HOUR));
    for (const c of candles) expect(c).toEqual(fakeCandle(FAKE_PRICES.BTC!, c.time, HOUR));

    await src.fetchCandles({ symbol, timeframe: '1h', limit: 3 }, signal());
    const requests = fake.requests(id);
    expect(requests.filter((r) => r.kind === 'candles')).toHaveLength(2);
    // The market list is fetched on the first call only.
    expect(requests.slice(0, -2).every((r) => r.kind === 'markets')).toBe(true);
    expect(JSON.stringify(requests.filter((r) => r.kind === 'candles').map((r) => [r.path, r.query]))).toContain(marketId);
  });

  it('merges smaller candles when the exchange lacks the timeframe (Coinbase 4h from 1h)', async () => {
    const candles = await source('coinbase').fetchCandles({ symbol: 'ETH/USD', timeframe: '4h', limit: 3 }, signal());
    const FOUR = TIMEFRAME_MS['4h'];
    expect(candles).toHaveLength(3);
    for (const c of candles) {
      expect(c.time % FOUR).toBe(0);
      const hours = [0, 1, 2, 3].map((n) => fakeCandle(FAKE_PRICES.ETH!, c.time + n * HOUR, HOUR)).filter((h) => h.time <= Date.now());
      expect(c.open).toBe(hours[0]!.open);
      expect(c.close).toBe(hours.at(-1)!.close);
      expect(c.high).toBe(Math.max(...hours.map((h) => h.high)));
      expect(c.low).toBe(Math.min(...hours.map((h) => h.low)));
    }
    expect(fake.requests('coinbase').find((r) => r.kind === 'candles')!.query.granularity).toBe('3600');
  });

  it('fails at once for a pair the exchange does not list', async () => {
    const err = await source('binance')
      .fetchCandles({ symbol: 'DOGE/USDT', timeframe: '1h', limit: 5 }, signal())
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(MarketDataError);
    expect(err).toMatchObject({ failure: 'unknown-symbol', message: MARKET_FAILURES['unknown-symbol'], logCause: { detail: 'Binance does not list DOGE/USDT' } });
    expect(fake.requests('binance').filter((r) => r.kind === 'candles')).toHaveLength(0);
  });
});

/** A provider's words, distinctive enough that finding them anywhere is a leak. */
const PROVIDER_TEXT = 'Exchange says: call desk 7QX-canary';

describe('failures: one kind each, the exchange\'s words for the log only', () => {
  // Each exchange answering in its own error format with PROVIDER_TEXT where its message goes.
  it.each([
    ['binance', 'unknown-symbol', 'unknown-symbol'],
    ['binance', 'bad-request', 'provider-error'],
    ['kraken', 'bad-request', 'provider-error'],
    ['coinbase', 'bad-request', 'provider-error'],
    ['kucoin', 'unknown-symbol', 'provider-error'],
    ['htx', 'unknown-symbol', 'provider-error'],
    ['binance', '429', 'rate-limited'],
    ['coinbase', '500', 'unavailable'],
  ] as const)('%s answering %s: %s', async (id, fault, kind) => {
    const src = source(id, { retries: 1 });
    const symbol = exchangeSymbol(id, 'BTC');
    await src.fetchCandles({ symbol, timeframe: '1h', limit: 5 }, signal()); // markets loaded
    fake.setFault(id, fault);
    fake.setErrorText(id, PROVIDER_TEXT);
    const err = (await src.fetchCandles({ symbol, timeframe: '1h', limit: 5 }, signal()).catch((e: unknown) => e)) as MarketDataError;
    expect(err).toBeInstanceOf(MarketDataError);
    expect(err.failure).toBe(kind);
    expect(err.message).toBe(MARKET_FAILURES[kind]);
    expect(err.message).not.toContain('7QX-canary');
    expect(JSON.stringify(err.logCause)).toContain('7QX-canary');
  });

  it('an exchange nobody listens for is unreachable, after the retries', async () => {
    const src = source('binance', { retries: 1, baseUrls: { ...fake.baseUrls, binance: 'http://127.0.0.1:9/binance' } });
    const err = (await src.fetchCandles({ symbol: 'BTC/USDT', timeframe: '1h', limit: 5 }, signal()).catch((e: unknown) => e)) as MarketDataError;
    expect(err).toMatchObject({ failure: 'unreachable', message: MARKET_FAILURES.unreachable, logCause: { attempts: 2 } });
  });
});

describe('rate limiter', () => {
  it('stays on: ccxt spaces the requests to one exchange', async () => {
    const config: MarketConfig = { mode: 'live', baseUrls: fake.baseUrls, whaleAlert: { apiKey: null, minUsd: 1 }, timeoutMs: 2_999, retries: 0 };
    const src = createCcxtSource('kraken', config, { rateLimitMs: 150 });
    await src.fetchCandles({ symbol: 'BTC/USD', timeframe: '1h', limit: 5 }, signal());
    const times = fake.requests('kraken').map((r) => r.at);
    expect(times).toHaveLength(3); // Assets, AssetPairs, OHLC
    for (let i = 1; i < times.length; i++) expect(times[i]! - times[i - 1]!).toBeGreaterThanOrEqual(120);
  });
});

describe('retries', () => {
  it('retries two 429s, then succeeds', async () => {
    fake.failNext('binance', 2, '429');
    const candles = await source('binance').fetchCandles({ symbol: 'BTC/USDT', timeframe: '15m', limit: 10 }, signal());
    expect(candles).toHaveLength(10);
    expect(fake.requests('binance').map((r) => r.outcome)).toEqual([429, 429, 200, 200]);
  });

  it('gives up after the retries on a persistent 500, with a clear message and a log cause', async () => {
    fake.setFault('binance', '500');
    const err = (await source('binance', { retries: 2 })
      .fetchCandles({ symbol: 'BTC/USDT', timeframe: '1h', limit: 5 }, signal())
      .catch((e: unknown) => e)) as MarketDataError;
    expect(err).toBeInstanceOf(MarketDataError);
    expect(err.failure).toBe('unavailable');
    expect(err.message).toBe(MARKET_FAILURES.unavailable);
    expect(err.source).toBe('binance');
    expect(err.logCause).toMatchObject({ failure: 'unavailable', status: 500, attempts: 3, detail: 'Binance is unavailable (HTTP 500, 2 retries)' });
    expect(fake.requests('binance')).toHaveLength(3);
  });

  it('reports rate limiting when every attempt gets a 429', async () => {
    fake.setFault('kucoin', '429');
    const err = (await source('kucoin', { retries: 1 })
      .fetchCandles({ symbol: 'BTC/USDT', timeframe: '1h', limit: 5 }, signal())
      .catch((e: unknown) => e)) as MarketDataError;
    expect(err).toMatchObject({ failure: 'rate-limited', message: MARKET_FAILURES['rate-limited'], logCause: { detail: 'KuCoin is rate limiting requests (429, 1 retry)' } });
    expect(fake.requests('kucoin')).toHaveLength(2);
  });

  it('times out quickly on a hanging exchange', async () => {
    fake.setFault('binance', 'hang');
    const started = Date.now();
    const err = (await source('binance', { timeoutMs: 150, retries: 1 })
      .fetchCandles({ symbol: 'BTC/USDT', timeframe: '1h', limit: 5 }, signal())
      .catch((e: unknown) => e)) as MarketDataError;
    expect(err).toBeInstanceOf(MarketDataError);
    expect(err.message).toBe(MARKET_FAILURES.timeout);
    expect(err.logCause).toMatchObject({ failure: 'timeout', detail: 'Binance did not answer in 0.15 s (1 retry)' });
    expect(Date.now() - started).toBeLessThan(2_000);
    expect(fake.requests('binance')).toHaveLength(2);
  });

  it('stops waiting as soon as the caller aborts', async () => {
    fake.setFault('binance', 'hang');
    const controller = new AbortController();
    const pending = source('binance', { timeoutMs: 5_000 }).fetchCandles({ symbol: 'BTC/USDT', timeframe: '1h', limit: 5 }, controller.signal);
    setTimeout(() => controller.abort(), 50);
    const started = Date.now();
    const err = (await pending.catch((e: unknown) => e)) as MarketDataError;
    expect(err).toBeInstanceOf(MarketDataError);
    expect(err).toMatchObject({ failure: 'cancelled', logCause: { detail: 'Binance request was cancelled' } });
    expect(Date.now() - started).toBeLessThan(1_000);
  });
});
