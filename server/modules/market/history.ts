import type { FastifyBaseLogger as Logger } from 'fastify';
import { BACKTEST_CANDLES_MAX, type THistoryCoverage } from '../../../contracts/backtest.ts';
import { TIMEFRAME_MS, type TCandle, type TCandleTimeframe, type TMarketSource } from '../../../contracts/market.ts';
import type { Db } from '../../db/client.ts';
import { MarketDataError, type CandleSource } from '../../integrations/market/candle-source.ts';
import { candleOpen } from '../../integrations/market/policy.ts';
import { dropUnusedMarkets, readCachedCandles, readOldestAvailable, saveCandles, saveOldestAvailable, touch, type CandleKey } from './candle-cache.repo.ts';

/** The most candles a live run reads (evaluate.ts: 1000), so the most warm-up a test can add. */
const WARM_UP_MAX = 1_000;
/** Cached candles kept per market: the most one test can ask for (docs/decisions/0037). */
export const CACHED_CANDLES_PER_MARKET = BACKTEST_CANDLES_MAX + WARM_UP_MAX;
/** A market no test read for this long leaves the cache. */
const UNUSED_MS = 30 * 86_400_000;
/** How often a process looks for such markets. */
const SWEEP_EVERY_MS = 60 * 60_000;

export type HistoryRequest = { source: TMarketSource; symbol: string; timeframe: TCandleTimeframe; candles: number };
export type HistoryOptions = { signal: AbortSignal; onProgress?: (loaded: number, total: number) => void };
export type History = { candles: TCandle[]; coverage: THistoryCoverage };

/**
 * The last `candles` candles of one market from the provider, with the database as a cache:
 *
 * - cached candles (closed ones only, one run without holes per market) are read first;
 * - what is newer is fetched from the cached newest on; if the cache does not reach the wanted
 *   range, everything is fetched from the oldest wanted candle and replaces it;
 * - older candles are fetched only when still short and the provider is not known to hold none
 *   older (remembered once a complete paging came back short: Kraken's 720, a recent listing,
 *   Yahoo's 60 days of 5-minute candles);
 * - a paging that stops on a failure keeps what arrived; older candles that would leave a hole
 *   before the cached ones are dropped rather than served with the hole.
 *
 * Rejects with MarketDataError when nothing at all could be read, or when `signal` aborted.
 */
export function createHistoryLoader(deps: { db?: Db; logger: Logger; now: () => Date }) {
  let lastSweep = 0;

  async function cacheStep<T>(what: string, key: CandleKey, run: (db: Db) => Promise<T>, fallback: T): Promise<T> {
    if (!deps.db) return fallback;
    try {
      return await run(deps.db);
    } catch (err) {
      // The cache only saves requests: without it the test still runs on fetched candles.
      deps.logger.warn({ err, ...key }, `candle cache: could not ${what}`);
      return fallback;
    }
  }

  return async function loadHistory(provider: CandleSource, request: HistoryRequest, options: HistoryOptions): Promise<History> {
    const { signal } = options;
    const wanted = Math.max(1, Math.floor(request.candles));
    const key: CandleKey = { source: request.source, symbol: request.symbol, timeframe: request.timeframe };
    const step = TIMEFRAME_MS[request.timeframe];
    const nowMs = deps.now().getTime();
    const now = new Date(nowMs);
    const latest = candleOpen(nowMs, request.timeframe);
    const from = provider.historyStart(request.timeframe, wanted, nowMs);
    const closed = (c: TCandle) => c.time + step <= nowMs;
    const progress = (loaded: number) => options.onProgress?.(Math.min(wanted, loaded), wanted);

    let cached = await cacheStep('read', key, (db) => readCachedCandles(db, key, wanted), []);
    const oldestAvailable = await cacheStep('read', key, (db) => readOldestAvailable(db, key), null);
    if (cached.length > 0) progress(cached.length);

    // Newer candles: after the cached newest when the cache reaches the wanted range.
    const joins = cached.length > 0 && cached.at(-1)!.time >= from - step;
    const base = joins ? cached.length : 0;
    const newer = await provider.fetchHistory(
      { symbol: request.symbol, timeframe: request.timeframe, from: joins ? cached.at(-1)!.time + step : from, until: latest },
      { signal, onPage: (n) => progress(base + n) },
    );
    let failure = newer.failure;
    const hadCache = cached.length > 0;
    if (!joins) cached = [];
    const toSave = newer.candles.filter(closed);
    if (toSave.length > 0 || (hadCache && !joins)) {
      await cacheStep('save', key, (db) => saveCandles(db, key, toSave, { replace: !joins, keep: CACHED_CANDLES_PER_MARKET, now }), undefined);
    } else {
      await cacheStep('mark used', key, (db) => touch(db, key, now), undefined);
    }
    let series = merge(cached, newer.candles);

    // Older candles: only when short, the cache joined, and the provider may hold some.
    const oldest = series[0]?.time;
    if (series.length < wanted && joins && !failure && oldest !== undefined && from < oldest && !(oldestAvailable !== null && oldestAvailable >= oldest)) {
      const older = await provider.fetchHistory(
        { symbol: request.symbol, timeframe: request.timeframe, from, until: oldest - step },
        { signal, onPage: (n) => progress(series.length + n) },
      );
      const before = older.candles.filter((c) => c.time < oldest);
      if (older.failure) {
        // What arrived ends somewhere before the cached candles: a hole the test must not see.
        failure = older.failure;
      } else {
        await cacheStep('save', key, (db) => saveCandles(db, key, before.filter(closed), { replace: false, keep: CACHED_CANDLES_PER_MARKET, now }), undefined);
        series = merge(before, series);
      }
    }

    if (signal.aborted) throw new MarketDataError(request.source, 'cancelled', { failure: 'cancelled', detail: `${request.source} history was cancelled` });
    if (failure) deps.logger.warn({ ...key, candles: wanted, received: series.length, cause: failure.logCause }, `market data history: ${String(failure.logCause.detail ?? failure.message)}`);
    if (series.length === 0) throw failure ?? new MarketDataError(request.source, 'no-data', { detail: `${request.source} has no ${request.timeframe} candles for ${request.symbol}` });

    // A complete paging from the oldest wanted candle that came back short: the provider has none older.
    if (series.length < wanted && !failure && series[0]!.time !== oldestAvailable) {
      const first = series[0]!.time;
      await cacheStep('save', key, (db) => saveOldestAvailable(db, key, first, now), undefined);
    }
    if (nowMs - lastSweep > SWEEP_EVERY_MS) {
      lastSweep = nowMs;
      await cacheStep('drop unused markets', key, (db) => dropUnusedMarkets(db, new Date(nowMs - UNUSED_MS)), 0);
    }

    const candles = series.slice(-wanted);
    const cachedTimes = new Set(cached.map((c) => c.time));
    progress(candles.length);
    return {
      candles,
      coverage: {
        requested: wanted,
        received: candles.length,
        cached: candles.filter((c) => cachedTimes.has(c.time)).length,
        short: candles.length >= wanted ? null : failure ? failure.failure : 'provider-history',
      },
    };
  };
}

/** Two series (each oldest first) as one, de-duplicated by time; `b` wins on a shared time. */
function merge(a: readonly TCandle[], b: readonly TCandle[]): TCandle[] {
  const byTime = new Map<number, TCandle>();
  for (const c of a) byTime.set(c.time, c);
  for (const c of b) byTime.set(c.time, c);
  return [...byTime.values()].sort((x, y) => x.time - y.time);
}
