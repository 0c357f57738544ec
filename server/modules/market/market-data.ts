import { setMaxListeners } from 'node:events';
import type { FastifyBaseLogger as Logger } from 'fastify';
import type { THistoryCoverage } from '../../../contracts/backtest.ts';
import type { TCandle, TCandleTimeframe, TMarketSource } from '../../../contracts/market.ts';
import type { MarketConfig } from '../../config.ts';
import type { Db } from '../../db/client.ts';
import { createCcxtSource, exchangeSymbol, isExchangeSource } from '../../integrations/market/ccxt-exchange.ts';
import { MarketDataError, type CandleRequest, type CandleSource } from '../../integrations/market/candle-source.ts';
import { simulatedCandles } from '../../integrations/market/simulated.ts';
import { createYahooSource } from '../../integrations/market/yahoo.ts';
import { createHistoryLoader } from './history.ts';

/** Candles oldest first, the last one the latest (possibly still forming). */
export type CandleSeries = CandleRequest & { candles: TCandle[]; simulated: boolean };

export interface MarketData {
  /**
   * Candles for one market. Within one tick (same `tick` key, e.g. the dispatch minute) the
   * same (source, symbol, timeframe) is fetched once and shared by every caller; a larger
   * `limit` than an earlier caller's in the tick is served from one fetch of the largest.
   * Callers asking the same in a tick get the same `candles` array (shared: never modify it), so
   * work derived from it can be shared by identity too. Rejects with MarketDataError.
   */
  getCandles(request: CandleRequest, tick: string): Promise<CandleSeries>;
  /** The last `candles` candles of one market (fewer when the provider has fewer), oldest first, the
   * last one the latest (possibly still forming; it is never cached). Cached candles are read from
   * the database; only what is missing is fetched, paging with the provider's own limits, behind
   * the live runs of this process (docs/decisions/0037).
   * Rejects with MarketDataError only when nothing at all could be read (or `signal` aborted). */
  getHistory(
    request: { source: TMarketSource; symbol: string; timeframe: TCandleTimeframe; candles: number },
    options: { signal: AbortSignal; onProgress?: (loaded: number, total: number) => void },
  ): Promise<{ candles: TCandle[]; simulated: boolean; coverage: THistoryCoverage }>;
  /** The symbol an exchange lists a token under against its usual quote, e.g. BTC/USDT. */
  cryptoSymbol(source: TMarketSource, token: string): string;
  close(): Promise<void>;
}

export type MarketDataDeps = {
  logger: Logger;
  now?: () => Date;
  /** The first retry's backoff in ms (tests use a few ms; production 500). */
  backoffMs?: number;
  /** ccxt's spacing between requests in ms instead of each exchange's own (tests only). */
  rateLimitMs?: number;
  /** The least rest between two of Yahoo's history requests in ms (tests only; production 1 s). */
  historyRestMs?: number;
  /** Where history is cached; without it every test fetches all it reads. */
  db?: Db;
};

/** `slices`: the last n candles per n asked, so callers asking the same get the same array. */
type Entry = { limit: number; candles: Promise<TCandle[]>; slices: Map<number, TCandle[]> };

/**
 * Candles for the runtime. Yahoo serves stocks, ccxt the exchanges, and in simulated mode the
 * generator serves everything (marked simulated, never touching the network).
 *
 * Within a tick (the runtime's dispatch minute) each (source, symbol, timeframe) is fetched once
 * and shared, a failure included, so a thousand agents watching BTC/USDT on Binance make one
 * request and a failing exchange is not hammered. Only the current and previous ticks are kept.
 */
export function createMarketData(config: MarketConfig, deps: MarketDataDeps): MarketData {
  const now = deps.now ?? (() => new Date());
  const sources = new Map<TMarketSource, CandleSource>();
  // Tick → (source|symbol|timeframe → entry); Map order is arrival order, so the first tick is the oldest.
  const ticks = new Map<string, Map<string, Entry>>();
  const closing = new AbortController();
  // Every in-flight fetch listens to it: hundreds at once are expected, not a leak.
  setMaxListeners(0, closing.signal);

  function sourceFor(source: TMarketSource): CandleSource | null {
    let found = sources.get(source);
    if (!found) {
      if (source === 'yahoo') found = createYahooSource(config, { logger: deps.logger, now, backoffMs: deps.backoffMs, historyRestMs: deps.historyRestMs });
      else if (isExchangeSource(source)) found = createCcxtSource(source, config, { backoffMs: deps.backoffMs, rateLimitMs: deps.rateLimitMs });
      else return null;
      sources.set(source, found);
    }
    return found;
  }

  const simulatedFor = (source: TMarketSource) => config.mode === 'simulated' || source === 'simulated';
  const loadHistory = createHistoryLoader({ db: deps.db, logger: deps.logger, now });

  async function fetchCandles(request: CandleRequest, tick: string): Promise<TCandle[]> {
    const { source, symbol, timeframe, limit } = request;
    if (simulatedFor(source)) return simulatedCandles(source, symbol, timeframe, limit, now().getTime());
    try {
      const provider = sourceFor(source);
      if (!provider) throw new MarketDataError(source, 'not-configured', { detail: `No market data source for ${source}` });
      return await provider.fetchCandles({ symbol, timeframe, limit }, closing.signal);
    } catch (err) {
      const error =
        err instanceof MarketDataError
          ? err
          : new MarketDataError(source, 'provider-error', {
              detail: `${source} market data failed`,
              error: err instanceof Error ? err.name : 'unknown',
              message: err instanceof Error ? err.message : String(err),
            });
      // Logged here, once per fetch, however many callers share it (each run logs its own too).
      if (!closing.signal.aborted) deps.logger.warn({ source, symbol, timeframe, tick, limit, cause: error.logCause }, `market data: ${String(error.logCause.detail ?? error.message)}`);
      throw error;
    }
  }

  function entriesOf(tick: string): Map<string, Entry> {
    let entries = ticks.get(tick);
    if (!entries) {
      entries = new Map();
      ticks.set(tick, entries);
      for (const old of ticks.keys()) {
        if (ticks.size <= 2) break;
        ticks.delete(old);
      }
    }
    return entries;
  }

  return {
    async getCandles(request, tick) {
      if (closing.signal.aborted) throw new MarketDataError(request.source, 'cancelled', { detail: 'Market data is shutting down' });
      const limit = Math.max(1, Math.floor(request.limit));
      const entries = entriesOf(tick);
      const key = `${request.source}|${request.symbol}|${request.timeframe}`;
      let entry = entries.get(key);
      // A caller wanting more candles than the shared fetch holds fetches again, for everyone after it.
      if (!entry || entry.limit < limit) {
        entry = { limit, candles: fetchCandles({ ...request, limit }, tick), slices: new Map() };
        entry.candles.catch(() => {}); // each caller awaits it; this only keeps an unawaited failure quiet
        entries.set(key, entry);
      }
      const all = await entry.candles;
      let candles = entry.slices.get(limit);
      if (!candles) {
        candles = all.slice(-limit);
        entry.slices.set(limit, candles);
      }
      return { ...request, limit, candles, simulated: simulatedFor(request.source) } satisfies CandleSeries;
    },

    async getHistory(request, options) {
      const { source, symbol, timeframe } = request;
      if (closing.signal.aborted) throw new MarketDataError(source, 'cancelled', { detail: 'Market data is shutting down' });
      const wanted = Math.max(1, Math.floor(request.candles));
      if (simulatedFor(source)) {
        const candles = simulatedCandles(source, symbol, timeframe, wanted, now().getTime());
        options.onProgress?.(candles.length, wanted);
        return { candles, simulated: true, coverage: { requested: wanted, received: candles.length, cached: 0, short: null } };
      }
      const provider = sourceFor(source);
      if (!provider) throw new MarketDataError(source, 'not-configured', { detail: `No market data source for ${source}` });
      const signal = AbortSignal.any([options.signal, closing.signal]);
      const history = await loadHistory(provider, { ...request, candles: wanted }, { signal, onProgress: options.onProgress });
      return { ...history, simulated: false };
    },

    cryptoSymbol(source, token) {
      if (isExchangeSource(source)) return exchangeSymbol(source, token);
      const upper = token.trim().toUpperCase();
      if (source === 'yahoo') return upper.includes('-') ? upper : `${upper}-USD`;
      return upper.includes('/') ? upper : `${upper}/USDT`;
    },

    async close() {
      closing.abort();
      ticks.clear();
    },
  };
}
