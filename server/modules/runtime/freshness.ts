import { EXCHANGE_SOURCES } from '../../../contracts/agent-markets.ts';
import { TIMEFRAME_MS, type TCandleTimeframe, type TMarketSource } from '../../../contracts/market.ts';
import { formatSince } from '../../../contracts/time-format.ts';

/**
 * When a market's latest candle still counts as current (issue 15, docs/decisions/0028). A feed
 * that froze (an exchange answering with the same old candles, a delisted stock) must not pass
 * for live data: its market is marked stale, feeds no rule or alert, and when every market of a
 * run is stale the run fails.
 */

/** Candle periods a latest candle may lag the run: the candle in progress, and the one before. */
const PERIODS_ALLOWED = 2;
/**
 * Stocks trade in sessions: outside them the last session's candle is current. Without an
 * exchange calendar the allowance is the longest usual closure, a weekend with a holiday
 * (Friday's close to Tuesday's open), on top of the two periods.
 */
const STOCK_CLOSURE_MS = 4 * 86_400_000;

/** The latest candle's open time `candleTime` is too old at `now` for this source and timeframe. */
export function isStale(source: TMarketSource, timeframe: TCandleTimeframe, candleTime: number, now: Date): boolean {
  const allowed = PERIODS_ALLOWED * TIMEFRAME_MS[timeframe] + (source === 'yahoo' ? STOCK_CLOSURE_MS : 0);
  return now.getTime() - candleTime > allowed;
}

const SOURCE_NAMES: Partial<Record<TMarketSource, string>> = {
  ...Object.fromEntries(Object.entries(EXCHANGE_SOURCES).flatMap(([name, id]) => (id ? [[id, name]] : []))),
  yahoo: 'Yahoo Finance',
  simulated: 'the simulator',
};

/**
 * 'no fresh data from Kraken since 15:00 UTC' (issue 15): the latest candle any stale market of
 * the source had, in `timeZone` (the owner's, else UTC) and named, with the day when it is not
 * the run's day there (docs/decisions/0066).
 */
export function staleSentence(source: TMarketSource, latest: number, now: Date, timeZone: string): string {
  return `no fresh data from ${SOURCE_NAMES[source] ?? source} since ${formatSince(latest, now, timeZone)}`;
}
