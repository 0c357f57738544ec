import { WATCHLIST_EXCHANGE_LABELS, WATCHLIST_EXCHANGES, WATCHLIST_MAX, watchedMarketLabel, ZWatchlist, type TWatchedMarket, type TWatchlistExchange } from '../../../../contracts/watchlist.ts';
import type { TFieldErrors } from './field-errors.ts';

export const DEFAULT_EXCHANGE: TWatchlistExchange = 'binance';

/** An exchange as a person may write it: its id or its name ('kucoin', 'KuCoin', 'Huobi'). */
function exchangeOf(text: string): TWatchlistExchange | null {
  const wanted = text.trim().toLowerCase();
  return WATCHLIST_EXCHANGES.find((e) => e === wanted || WATCHLIST_EXCHANGE_LABELS[e].toLowerCase() === wanted || (e === 'htx' && wanted === 'huobi')) ?? null;
}

/**
 * Markets pasted at once ('AAPL, MSFT, BTC/USDT on binance', one per line or comma-separated): a
 * symbol with a slash is a crypto pair (on Binance unless an exchange follows, 'on kraken' or
 * 'kraken'), any other a stock. What cannot be read is named, not guessed.
 */
export function parseMarkets(text: string): { markets: TWatchedMarket[]; unreadable: string[] } {
  const markets: TWatchedMarket[] = [];
  const unreadable: string[] = [];
  for (const raw of text.split(/[,;\n]+/)) {
    const entry = raw.trim();
    if (entry === '') continue;
    const match = /^(\S+)(?:\s+(?:on\s+)?(.+))?$/i.exec(entry);
    const symbol = match?.[1]?.toUpperCase() ?? '';
    const where = match?.[2];
    if (symbol.includes('/')) {
      const exchange = where === undefined ? DEFAULT_EXCHANGE : exchangeOf(where);
      if (exchange) markets.push({ kind: 'crypto', symbol, exchange });
      else unreadable.push(entry);
    } else if (where === undefined && symbol !== '') markets.push({ kind: 'stock', symbol });
    else unreadable.push(entry);
  }
  return { markets, unreadable };
}

/** The list with the pasted markets added: the ones it holds already are skipped, and no more than WATCHLIST_MAX in all. */
export function addMarkets(list: readonly TWatchedMarket[], pasted: readonly TWatchedMarket[]): { list: TWatchedMarket[]; duplicates: number; overLimit: number } {
  const seen = new Set(list.map(watchedMarketLabel));
  const next = [...list];
  let duplicates = 0;
  let overLimit = 0;
  for (const market of pasted) {
    const label = watchedMarketLabel(market);
    if (seen.has(label)) duplicates += 1;
    else if (next.length >= WATCHLIST_MAX) overLimit += 1;
    else {
      seen.add(label);
      next.push(market);
    }
  }
  return { list: next, duplicates, overLimit };
}

/** The contract's messages for a watchlist, by path ('watchlist.2.symbol'). */
export function watchlistProblems(list: readonly TWatchedMarket[]): TFieldErrors {
  const result = ZWatchlist.safeParse(list);
  if (result.success) return {};
  const errors: Record<string, string> = {};
  for (const issue of result.error.issues) errors[['watchlist', ...issue.path.map(String)].join('.')] ??= issue.message;
  return errors;
}
