import pino from 'pino';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { startFakeExchanges, type FakeExchanges } from '../../../tests/fakes/exchanges.ts';
import { startFakeYahoo, type FakeYahoo } from '../../../tests/fakes/yahoo.ts';
import type { MarketConfig } from '../../config.ts';
import { MarketDataError } from '../../integrations/market/candle-source.ts';
import { createMarketData, type MarketData } from './market-data.ts';

let exchanges: FakeExchanges;
let yahoo: FakeYahoo;
beforeAll(async () => {
  [exchanges, yahoo] = await Promise.all([startFakeExchanges(), startFakeYahoo()]);
});
afterAll(() => Promise.all([exchanges.close(), yahoo.close()]));

const opened: MarketData[] = [];
afterEach(async () => {
  await Promise.all(opened.splice(0).map((m) => m.close()));
  exchanges.reset();
  yahoo.reset();
});

/** Each instance gets its own ccxt instances (cached per timeout), so markets load per test. */
let seq = 0;
function marketData(overrides: Partial<MarketConfig> = {}) {
  const logs: Array<{ level: number; msg: string; cause?: Record<string, unknown> }> = [];
  const logger = pino({ level: 'debug' }, { write: (line: string) => void logs.push(JSON.parse(line)) });
  const config: MarketConfig = {
    mode: 'live',
    baseUrls: { ...exchanges.baseUrls, yahoo: yahoo.baseUrl },
    whaleAlert: { apiKey: null, minUsd: 1_000_000 },
    timeoutMs: 4_000 + seq++,
    retries: 1,
    ...overrides,
  };
  const md = createMarketData(config, { logger, backoffMs: 5, rateLimitMs: 5 });
  opened.push(md);
  return { md, logs, warnings: () => logs.filter((l) => l.level === 40) };
}

const candleRequests = (exchange: Parameters<FakeExchanges['requests']>[0]) => exchanges.requests(exchange).filter((r) => r.kind === 'candles');
const btc = { source: 'binance', symbol: 'BTC/USDT', timeframe: '1h' } as const;

describe('tick sharing', () => {
  it('fetches once for concurrent callers of the same tick and shares the candles', async () => {
    const { md } = marketData();
    const series = await Promise.all(Array.from({ length: 20 }, () => md.getCandles({ ...btc, limit: 50 }, 'tick-1')));
    expect(candleRequests('binance')).toHaveLength(1);
    for (const s of series) {
      expect(s).toMatchObject({ ...btc, limit: 50, simulated: false });
      expect(s.candles).toEqual(series[0]!.candles);
    }
    expect(series[0]!.candles).toHaveLength(50);
  });

  it('serves a smaller limit from the larger fetch, and fetches again for a larger one', async () => {
    const { md } = marketData();
    const fifty = await md.getCandles({ ...btc, limit: 50 }, 'tick-1');
    const twenty = await md.getCandles({ ...btc, limit: 20 }, 'tick-1');
    expect(twenty.candles).toEqual(fifty.candles.slice(-20));
    expect(candleRequests('binance')).toHaveLength(1);

    const hundred = await md.getCandles({ ...btc, limit: 100 }, 'tick-1');
    expect(hundred.candles).toHaveLength(100);
    expect(candleRequests('binance').map((r) => r.query.limit)).toEqual(['50', '100']);
    const thirty = await md.getCandles({ ...btc, limit: 30 }, 'tick-1');
    expect(thirty.candles).toEqual(hundred.candles.slice(-30));
    expect(candleRequests('binance')).toHaveLength(2);
  });

  it('fetches again in a new tick, and keeps only the current and previous ticks', async () => {
    const { md } = marketData();
    await md.getCandles({ ...btc, limit: 10 }, 't1');
    await md.getCandles({ ...btc, limit: 10 }, 't2');
    expect(candleRequests('binance')).toHaveLength(2);
    await md.getCandles({ ...btc, limit: 10 }, 't1'); // still kept: the previous tick
    expect(candleRequests('binance')).toHaveLength(2);
    await md.getCandles({ ...btc, limit: 10 }, 't3'); // t1 is dropped now
    await md.getCandles({ ...btc, limit: 10 }, 't2');
    expect(candleRequests('binance')).toHaveLength(3);
  });

  it('keeps different markets, timeframes and sources apart', async () => {
    const { md } = marketData();
    await Promise.all([
      md.getCandles({ ...btc, limit: 10 }, 't'),
      md.getCandles({ ...btc, timeframe: '15m', limit: 10 }, 't'),
      md.getCandles({ ...btc, symbol: 'ETH/USDT', limit: 10 }, 't'),
      md.getCandles({ source: 'kraken', symbol: 'BTC/USD', timeframe: '1h', limit: 10 }, 't'),
      md.getCandles({ source: 'yahoo', symbol: 'AAPL', timeframe: '1d', limit: 10 }, 't'),
      md.getCandles({ source: 'yahoo', symbol: 'AAPL', timeframe: '1d', limit: 10 }, 't'),
    ]);
    expect(candleRequests('binance')).toHaveLength(3);
    expect(candleRequests('kraken')).toHaveLength(1);
    expect(yahoo.requests()).toHaveLength(1);
  });
});

describe('failures', () => {
  it('shares a failure within the tick (one fetch, one warning), but not into the next tick', async () => {
    const { md, warnings } = marketData({ retries: 1 });
    exchanges.setFault('binance', '500');
    const results = await Promise.allSettled(Array.from({ length: 10 }, () => md.getCandles({ ...btc, limit: 10 }, 'bad-tick')));
    for (const r of results) {
      expect(r.status).toBe('rejected');
      const err = (r as PromiseRejectedResult).reason as MarketDataError;
      expect(err).toBeInstanceOf(MarketDataError);
      expect(err.failure).toBe('unavailable');
    }
    expect(exchanges.requests('binance')).toHaveLength(2); // the first attempt and its one retry
    expect(warnings()).toHaveLength(1);
    expect(warnings()[0]).toMatchObject({ msg: 'market data: Binance is unavailable (HTTP 500, 1 retry)', cause: { status: 500, failure: 'unavailable' } });

    // Still failed for a late caller of the same tick, without a new request.
    await expect(md.getCandles({ ...btc, limit: 5 }, 'bad-tick')).rejects.toMatchObject({ failure: 'unavailable' });
    expect(exchanges.requests('binance')).toHaveLength(2);

    exchanges.setFault('binance', 'none');
    const next = await md.getCandles({ ...btc, limit: 10 }, 'next-tick');
    expect(next.candles).toHaveLength(10);
  });

  it('reports Yahoo’s unknown symbol as a MarketDataError', async () => {
    const { md, warnings } = marketData();
    await expect(md.getCandles({ source: 'yahoo', symbol: 'NOPE', timeframe: '1d', limit: 5 }, 't')).rejects.toMatchObject({ failure: 'unknown-symbol' });
    expect(warnings()).toHaveLength(1);
    expect(warnings()[0]).toMatchObject({ msg: 'market data: Yahoo Finance does not know the symbol NOPE' });
  });

  it('close() stops waiting for a hanging exchange', async () => {
    const { md } = marketData({ timeoutMs: 10_000 });
    exchanges.setFault('binance', 'hang');
    const pending = md.getCandles({ ...btc, limit: 10 }, 't');
    await new Promise((resolve) => setTimeout(resolve, 50));
    const started = Date.now();
    await md.close();
    await expect(pending).rejects.toMatchObject({ failure: 'cancelled', logCause: { detail: 'Binance request was cancelled' } });
    expect(Date.now() - started).toBeLessThan(1_000);
    await expect(md.getCandles({ ...btc, limit: 10 }, 't')).rejects.toMatchObject({ failure: 'cancelled', logCause: { detail: 'Market data is shutting down' } });
  });
});

describe('simulated mode', () => {
  it('serves every source from the generator, marked simulated, without touching the network', async () => {
    const now = new Date('2025-06-04T12:34:56Z');
    const logs: unknown[] = [];
    const md = createMarketData(
      { mode: 'simulated', baseUrls: { ...exchanges.baseUrls, yahoo: yahoo.baseUrl }, whaleAlert: { apiKey: null, minUsd: 1 }, timeoutMs: 1_000, retries: 0 },
      { logger: pino({ level: 'debug' }, { write: (line: string) => void logs.push(line) }), now: () => now },
    );
    opened.push(md);
    const stock = await md.getCandles({ source: 'yahoo', symbol: 'AAPL', timeframe: '1d', limit: 30 }, 't');
    const coin = await md.getCandles({ source: 'kraken', symbol: 'BTC/USD', timeframe: '4h', limit: 200 }, 't');
    expect(stock).toMatchObject({ source: 'yahoo', symbol: 'AAPL', simulated: true });
    expect(stock.candles).toHaveLength(30);
    expect(coin).toMatchObject({ source: 'kraken', simulated: true });
    expect(coin.candles).toHaveLength(200);
    expect(coin.candles.at(-1)!.time).toBe(Date.parse('2025-06-04T12:00:00Z'));
    expect(exchanges.requests()).toHaveLength(0);
    expect(yahoo.requests()).toHaveLength(0);
    expect(logs).toHaveLength(0);
  });

  it('serves the simulated source in live mode too', async () => {
    const { md } = marketData();
    const series = await md.getCandles({ source: 'simulated', symbol: 'ETH/USDT', timeframe: '15m', limit: 20 }, 't');
    expect(series.simulated).toBe(true);
    expect(series.candles).toHaveLength(20);
    expect(exchanges.requests()).toHaveLength(0);
  });
});

describe('cryptoSymbol', () => {
  it('pairs a token with each source’s usual quote', () => {
    const { md } = marketData();
    expect(md.cryptoSymbol('binance', 'btc')).toBe('BTC/USDT');
    expect(md.cryptoSymbol('kucoin', 'ETH')).toBe('ETH/USDT');
    expect(md.cryptoSymbol('htx', 'SOL')).toBe('SOL/USDT');
    expect(md.cryptoSymbol('coinbase', 'BTC')).toBe('BTC/USD');
    expect(md.cryptoSymbol('kraken', 'BTC')).toBe('BTC/USD');
    expect(md.cryptoSymbol('yahoo', 'BTC')).toBe('BTC-USD');
    expect(md.cryptoSymbol('simulated', 'BTC')).toBe('BTC/USDT');
  });
});
