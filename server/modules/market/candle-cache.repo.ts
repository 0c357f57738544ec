import { and, asc, desc, eq, lt, sql } from 'drizzle-orm';
import type { TCandle, TCandleTimeframe, TMarketSource } from '../../../contracts/market.ts';
import type { Db } from '../../db/client.ts';
import { candleCache, candleCoverage } from '../../db/schema.ts';

/** One cached market. */
export type CandleKey = { source: TMarketSource; symbol: string; timeframe: TCandleTimeframe };

/** Rows per insert: nine parameters each, well under PostgreSQL's 65,535 per statement. */
const INSERT_CHUNK = 1_000;

const byKey = (key: CandleKey) => and(eq(candleCache.source, key.source), eq(candleCache.symbol, key.symbol), eq(candleCache.timeframe, key.timeframe));
const coverageOf = (key: CandleKey) =>
  and(eq(candleCoverage.source, key.source), eq(candleCoverage.symbol, key.symbol), eq(candleCoverage.timeframe, key.timeframe));

/** The newest `count` cached candles of a market, oldest first. */
export async function readCachedCandles(db: Db, key: CandleKey, count: number): Promise<TCandle[]> {
  const rows = await db
    .select({ time: candleCache.time, open: candleCache.open, high: candleCache.high, low: candleCache.low, close: candleCache.close, volume: candleCache.volume })
    .from(candleCache)
    .where(byKey(key))
    .orderBy(desc(candleCache.time))
    .limit(count);
  return rows.reverse();
}

/** What is known of the provider's history for a market: the oldest candle it gives (null: not known). */
export async function readOldestAvailable(db: Db, key: CandleKey): Promise<number | null> {
  const [row] = await db.select({ oldest: candleCoverage.oldestAvailable }).from(candleCoverage).where(coverageOf(key));
  return row?.oldest ?? null;
}

/**
 * Stores closed candles of a market (an upsert per candle time) and keeps its newest `keep` only.
 * `replace`: the candles do not join the cached ones (a gap would lie between), so those go.
 * Marks the market used now.
 */
export async function saveCandles(db: Db, key: CandleKey, candles: readonly TCandle[], options: { replace: boolean; keep: number; now: Date }): Promise<void> {
  await db.transaction(async (tx) => {
    if (options.replace) await tx.delete(candleCache).where(byKey(key));
    for (let i = 0; i < candles.length; i += INSERT_CHUNK) {
      const rows = candles.slice(i, i + INSERT_CHUNK).map((c) => ({ ...key, time: c.time, open: c.open, high: c.high, low: c.low, close: c.close, volume: c.volume }));
      await tx
        .insert(candleCache)
        .values(rows)
        .onConflictDoUpdate({
          target: [candleCache.source, candleCache.symbol, candleCache.timeframe, candleCache.time],
          set: { open: sql`excluded.open`, high: sql`excluded.high`, low: sql`excluded.low`, close: sql`excluded.close`, volume: sql`excluded.volume` },
        });
    }
    // Older than the keep-th newest: no test can ask for them (a null bound deletes nothing).
    const [bound] = await tx.select({ time: candleCache.time }).from(candleCache).where(byKey(key)).orderBy(desc(candleCache.time)).offset(options.keep).limit(1);
    if (bound) await tx.delete(candleCache).where(and(byKey(key), sql`${candleCache.time} <= ${bound.time}`));
    await touch(tx, key, options.now);
  });
}

/** Remembers that the provider gives no candle older than `time` for this market. */
export async function saveOldestAvailable(db: Db, key: CandleKey, time: number, now: Date): Promise<void> {
  await db
    .insert(candleCoverage)
    .values({ ...key, oldestAvailable: time, usedAt: now })
    .onConflictDoUpdate({ target: [candleCoverage.source, candleCoverage.symbol, candleCoverage.timeframe], set: { oldestAvailable: time, usedAt: now } });
}

/** Marks the market used now (a test read it). */
export async function touch(db: Db, key: CandleKey, now: Date): Promise<void> {
  await db
    .insert(candleCoverage)
    .values({ ...key, usedAt: now })
    .onConflictDoUpdate({ target: [candleCoverage.source, candleCoverage.symbol, candleCoverage.timeframe], set: { usedAt: now } });
}

/** Drops the cache of every market no test has read since `before`. */
export async function dropUnusedMarkets(db: Db, before: Date): Promise<number> {
  return db.transaction(async (tx) => {
    const stale = await tx
      .select({ source: candleCoverage.source, symbol: candleCoverage.symbol, timeframe: candleCoverage.timeframe })
      .from(candleCoverage)
      .where(lt(candleCoverage.usedAt, before))
      .orderBy(asc(candleCoverage.usedAt))
      .limit(100);
    for (const key of stale) {
      await tx.delete(candleCache).where(byKey(key as CandleKey));
      await tx.delete(candleCoverage).where(coverageOf(key as CandleKey));
    }
    return stale.length;
  });
}
