import { MARKET_FAILURES, type TCandle, type TCandleTimeframe, type TMarketFailure, type TMarketSource } from '../../../contracts/market.ts';

/**
 * What every provider of candles offers and how it fails. Here, with the providers, so that the
 * market data module depends on them and never the other way round (docs/decisions/0018).
 */

/** One market's candles as the runtime asks for them. */
export type CandleRequest = { source: TMarketSource; symbol: string; timeframe: TCandleTimeframe; limit: number };

/** One provider of candles (a ccxt exchange, Yahoo, the simulator). */
export interface CandleSource {
  readonly id: TMarketSource;
  fetchCandles(request: Omit<CandleRequest, 'source'>, signal: AbortSignal): Promise<TCandle[]>;
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
