import type { TCandle, TMarketSource } from '../../../contracts/market.ts';
import { MarketDataError, type HistoryPaging } from './candle-source.ts';
import type { RequestGate } from './request-gate.ts';

/** Runs one page (behind live requests, after the rest since the previous page). */
export type PageRunner = <P>(run: () => Promise<P>) => Promise<P>;

/**
 * What every provider's history paging shares: one paging at a time behind live requests (the
 * gate), candles de-duplicated by time (pages may overlap), progress after each page, and a
 * failure that ends the paging keeping what arrived. `pages` walks the provider's own pages,
 * handing each page's candles to `keep`.
 */
export async function collectHistory(input: {
  source: TMarketSource;
  name: string;
  gate: RequestGate;
  signal: AbortSignal;
  onPage?: (received: number) => void;
  pages: (page: PageRunner, keep: (candles: readonly TCandle[]) => void) => Promise<void>;
}): Promise<HistoryPaging> {
  const byTime = new Map<number, TCandle>();
  const keep = (candles: readonly TCandle[]) => {
    for (const c of candles) byTime.set(c.time, c);
    input.onPage?.(byTime.size);
  };
  const sorted = () => [...byTime.values()].sort((a, b) => a.time - b.time);
  try {
    await input.gate.runHistory(input.signal, (page) => input.pages(page, keep));
    return { candles: sorted(), failure: null };
  } catch (err) {
    return { candles: sorted(), failure: asFailure(err, input.source, input.name, input.signal) };
  }
}

function asFailure(err: unknown, source: TMarketSource, name: string, signal: AbortSignal): MarketDataError {
  if (err instanceof MarketDataError) return err;
  if (signal.aborted) return new MarketDataError(source, 'cancelled', { failure: 'cancelled', detail: `${name} history was cancelled` });
  return new MarketDataError(source, 'provider-error', {
    detail: `${name} history failed`,
    error: err instanceof Error ? err.name : 'unknown',
    message: err instanceof Error ? err.message : String(err),
  });
}
