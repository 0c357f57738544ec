import { and, eq } from 'drizzle-orm';
import pino from 'pino';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { TIMEFRAME_MS } from '../../../contracts/market.ts';
import { startFakeExchanges, type FakeExchange, type FakeExchanges } from '../../../tests/fakes/exchanges.ts';
import type { MarketConfig } from '../../config.ts';
import { candleCache, candleCoverage } from '../../db/schema.ts';
import { createTestApp, type TestApp } from '../../test/test-app.ts';
import { readCachedCandles, saveCandles } from './candle-cache.repo.ts';
import { createMarketData, type MarketData } from './market-data.ts';

// The history cache on the app's database (PGlite here, PostgreSQL too when script/test runs the
// suite there): a second test of a market fetches only what the cache lacks.

const HOUR = TIMEFRAME_MS['1h'];

let exchanges: FakeExchanges;
let t: TestApp;
beforeAll(async () => {
  [exchanges, t] = await Promise.all([startFakeExchanges(), createTestApp()]);
});
afterAll(async () => {
  await t?.close();
  await exchanges?.close();
});

const opened: MarketData[] = [];
afterEach(async () => {
  await Promise.all(opened.splice(0).map((m) => m.close()));
  exchanges.reset();
  await t.database.db.delete(candleCache);
  await t.database.db.delete(candleCoverage);
});

let seq = 0;
function marketData() {
  const config: MarketConfig = { mode: 'live', baseUrls: exchanges.baseUrls, whaleAlert: { apiKey: null, minUsd: 1 }, timeoutMs: 6_000 + seq++, retries: 1 };
  const md = createMarketData(config, { logger: pino({ level: 'silent' }), backoffMs: 5, rateLimitMs: 5, historyRestMs: 5, db: t.database.db });
  opened.push(md);
  return md;
}

const signal = () => new AbortController().signal;
const candleRequests = (exchange: FakeExchange) => exchanges.requests(exchange).filter((r) => r.kind === 'candles');
const currentHour = () => Math.floor(Date.now() / HOUR) * HOUR;
const btc = { source: 'binance', symbol: 'BTC/USDT', timeframe: '1h' } as const;
const cachedRows = () =>
  t.database.db
    .select({ time: candleCache.time })
    .from(candleCache)
    .where(and(eq(candleCache.source, 'binance'), eq(candleCache.symbol, 'BTC/USDT'), eq(candleCache.timeframe, '1h')))
    .orderBy(candleCache.time);

describe('history cache', () => {
  it('caches closed candles only; a second test fetches only what is newer than the cache', async () => {
    const first = await marketData().getHistory({ ...btc, candles: 2500 }, { signal: signal() });
    expect(first.coverage).toEqual({ requested: 2500, received: 2500, cached: 0, short: null });
    expect(candleRequests('binance')).toHaveLength(3);

    // The forming candle (the current hour) is never cached.
    const rows = await cachedRows();
    expect(rows).toHaveLength(2499);
    expect(rows.at(-1)!.time).toBe(currentHour() - HOUR);

    exchanges.reset();
    const progress: number[] = [];
    const second = await marketData().getHistory({ ...btc, candles: 2500 }, { signal: signal(), onProgress: (loaded) => progress.push(loaded) });
    expect(second.coverage).toEqual({ requested: 2500, received: 2500, cached: 2499, short: null });
    expect(second.candles).toEqual(first.candles);
    // One request, from the candle after the cached newest: nothing cached is fetched again.
    const again = candleRequests('binance');
    expect(again).toHaveLength(1);
    expect(Number(again[0]!.query.startTime)).toBe(currentHour());
    expect(progress[0]).toBe(2499);
  });

  it('fetches older candles only when the cache is short of them, and caches them', async () => {
    await marketData().getHistory({ ...btc, candles: 300 }, { signal: signal() });
    exchanges.reset();
    const more = await marketData().getHistory({ ...btc, candles: 1500 }, { signal: signal() });
    expect(more.coverage).toEqual({ requested: 1500, received: 1500, cached: 299, short: null });
    expect(more.candles.map((c) => c.time)).toEqual(Array.from({ length: 1500 }, (_, i) => currentHour() - (1499 - i) * HOUR));
    // Newer first (the current candle), then the older range up to the cached oldest, in pages.
    const pages = candleRequests('binance').map((r) => Number(r.query.startTime));
    expect(pages[0]).toBe(currentHour());
    expect(pages[1]).toBe(currentHour() - 1499 * HOUR);
    expect(pages).toHaveLength(3);
    expect(await cachedRows()).toHaveLength(1499);
  });

  it('remembers that the provider holds none older: the next test does not ask again', async () => {
    exchanges.listSince('binance', currentHour() - 199 * HOUR);
    const first = await marketData().getHistory({ ...btc, candles: 1000 }, { signal: signal() });
    expect(first.coverage).toEqual({ requested: 1000, received: 200, cached: 0, short: 'provider-history' });
    const [coverage] = await t.database.db.select().from(candleCoverage);
    expect(coverage).toMatchObject({ source: 'binance', symbol: 'BTC/USDT', timeframe: '1h', oldestAvailable: currentHour() - 199 * HOUR });

    exchanges.reset();
    exchanges.listSince('binance', currentHour() - 199 * HOUR);
    const second = await marketData().getHistory({ ...btc, candles: 1000 }, { signal: signal() });
    expect(second.coverage).toEqual({ requested: 1000, received: 200, cached: 199, short: 'provider-history' });
    expect(candleRequests('binance').map((r) => Number(r.query.startTime))).toEqual([currentHour()]);
  });

  it('does not cache older candles after a paging that stopped, nor serve them with a hole', async () => {
    await marketData().getHistory({ ...btc, candles: 300 }, { signal: signal() });
    exchanges.reset();
    let pages = 0;
    const more = await marketData().getHistory(
      { ...btc, candles: 2500 },
      {
        signal: signal(),
        // The newer page, then the first older page; the next older page meets persistent 429s.
        onProgress: () => ++pages === 3 && exchanges.setFault('binance', '429'),
      },
    );
    expect(more.coverage).toEqual({ requested: 2500, received: 300, cached: 299, short: 'rate-limited' });
    expect(more.candles.map((c) => c.time)).toEqual(Array.from({ length: 300 }, (_, i) => currentHour() - (299 - i) * HOUR));
    expect(await cachedRows()).toHaveLength(299);
  });

  it('keeps at most the newest `keep` candles of a market', async () => {
    const key = { source: 'kraken', symbol: 'ETH/USD', timeframe: '1d' } as const;
    const candles = Array.from({ length: 12 }, (_, i) => ({ time: i * 86_400_000, open: 1, high: 2, low: 0.5, close: 1.5, volume: 10 + i }));
    await saveCandles(t.database.db, key, candles.slice(0, 8), { replace: false, keep: 10, now: new Date() });
    await saveCandles(t.database.db, key, candles.slice(6), { replace: false, keep: 10, now: new Date() });
    expect((await readCachedCandles(t.database.db, key, 100)).map((c) => c.volume)).toEqual(candles.slice(2).map((c) => c.volume));
    await saveCandles(t.database.db, key, candles.slice(10), { replace: true, keep: 10, now: new Date() });
    expect(await readCachedCandles(t.database.db, key, 100)).toEqual(candles.slice(10));
  });
});
