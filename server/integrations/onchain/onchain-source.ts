import { MARKET_FAILURES, type TMarketFailure } from '../../../contracts/market.ts';

/**
 * What an on-chain data provider offers and how it fails. Here, with the provider, so that the
 * runtime depends on it and never the other way round (docs/decisions/0018).
 */

/** A large on-chain transfer of a token (Whale Alert). */
export type WhaleTransaction = { hash: string; blockchain: string; symbol: string; amount: number; amountUsd: number; from: string; to: string; time: string };

export interface OnChainSource {
  /** Transfers of `token` worth at least the configured minimum since `since`. */
  whaleTransactions(token: string, since: Date, signal: AbortSignal): Promise<WhaleTransaction[]>;
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
