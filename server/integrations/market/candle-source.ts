import { MARKET_FAILURES, type TCandle, type TCandleTimeframe, type TMarketFailure, type TMarketSource } from '../../../contracts/market.ts';

/**
 * What every provider of candles offers and how it fails. Here, with the providers, so that the
 * market data module depends on them and never the other way round (docs/decisions/0018).
 */

/** One market's candles as the runtime asks for them. */
export type CandleRequest = { source: TMarketSource; symbol: string; timeframe: TCandleTimeframe; limit: number };

/** Older candles of one market: every candle from `from` to `until` (open times, ms; `until` the latest wanted, possibly still forming). */
export type HistoryRequest = { symbol: string; timeframe: TCandleTimeframe; from: number; until: number };

/**
 * What a history paging read: the candles (oldest first, de-duplicated by time, the latest one
 * possibly still forming) and, when it stopped early, why. Pages that arrived are kept.
 */
export type HistoryPaging = { candles: TCandle[]; failure: MarketDataError | null };

export type HistoryOptions = {
  signal: AbortSignal;
  /** After each page: candles read so far (in the requested timeframe). */
  onPage?: (received: number) => void;
};

/** One provider of candles (a ccxt exchange, Yahoo, the simulator). */
export interface CandleSource {
  readonly id: TMarketSource;
  fetchCandles(request: Omit<CandleRequest, 'source'>, signal: AbortSignal): Promise<TCandle[]>;
  /** The open time from which `candles` candles up to `nowMs` should be asked for, within what the provider serves. */
  historyStart(timeframe: TCandleTimeframe, candles: number, nowMs: number): number;
  /**
   * Pages forward from `request.from` with the provider's own page size and limits, behind any
   * live request of this process (request-gate.ts). Never rejects: a failure ends the paging
   * and is returned with what arrived before it.
   */
  fetchHistory(request: HistoryRequest, options: HistoryOptions): Promise<HistoryPaging>;
}

/**
 * A market data failure: its kind (the user reads MARKET_FAILURES[kind], which is also the
 * message) and, for the log only, what the provider said.
 */
export class MarketDataError extends Error {
  readonly source: TMarketSource;
  readonly failure: TMarketFailure;
  /** For the log: status, provider text, error name, attempts, our detail (never keys). */
  readonly logCause: Record<string, unknown>;

  constructor(source: TMarketSource, failure: TMarketFailure, logCause: Record<string, unknown> = {}) {
    super(MARKET_FAILURES[failure]);
    this.name = 'MarketDataError';
    this.source = source;
    this.failure = failure;
    this.logCause = logCause;
  }
}
