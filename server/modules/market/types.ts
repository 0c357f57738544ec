import { MARKET_FAILURES, type TCandle, type TCandleTimeframe, type TMarketFailure, type TMarketSource } from '../../../contracts/market.ts';

/** One market's candles as the runtime asks for them. */
export type CandleRequest = { source: TMarketSource; symbol: string; timeframe: TCandleTimeframe; limit: number };

/** Candles oldest first, the last one the latest (possibly still forming). */
export type CandleSeries = CandleRequest & { candles: TCandle[]; simulated: boolean };

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

/**
 * An on-chain lookup that failed: its kind (the user reads MARKET_FAILURES[failure], also the
 * message) and a cause fit for the log. Its own class because MarketDataError's `source` names
 * candle sources only.
 */
export class OnChainError extends Error {
  readonly failure: TMarketFailure;
  /** For the log: status, URL without its query, provider text, attempts, our detail (never the key). */
  readonly logCause: Record<string, unknown>;

  constructor(failure: TMarketFailure, detail: string, logCause: Record<string, unknown> = {}) {
    super(MARKET_FAILURES[failure]);
    this.name = 'OnChainError';
    this.failure = failure;
    this.logCause = { ...logCause, detail };
  }
}

/** One provider of candles (a ccxt exchange, Yahoo, the simulator). */
export interface CandleSource {
  readonly id: TMarketSource;
  fetchCandles(request: Omit<CandleRequest, 'source'>, signal: AbortSignal): Promise<TCandle[]>;
}

export interface MarketData {
  /**
   * Candles for one market. Within one tick (same `tick` key, e.g. the dispatch minute) the
   * same (source, symbol, timeframe) is fetched once and shared by every caller; a larger
   * `limit` than an earlier caller's in the tick is served from one fetch of the largest.
   * Rejects with MarketDataError.
   */
  getCandles(request: CandleRequest, tick: string): Promise<CandleSeries>;
  /** The symbol an exchange lists a token under against its usual quote, e.g. BTC/USDT. */
  cryptoSymbol(source: TMarketSource, token: string): string;
  close(): Promise<void>;
}

/** A large on-chain transfer of a token (Whale Alert). */
export type WhaleTransaction = { hash: string; blockchain: string; symbol: string; amount: number; amountUsd: number; from: string; to: string; time: string };

export interface OnChainSource {
  /** Transfers of `token` worth at least the configured minimum since `since`. */
  whaleTransactions(token: string, since: Date, signal: AbortSignal): Promise<WhaleTransaction[]>;
}
