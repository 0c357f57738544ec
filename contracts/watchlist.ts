import { z } from 'zod';
import type { TMarketSource } from './market.ts';

/**
 * A Custom Monitor's watchlist (issue 30 item 3, docs/decisions/0071): stocks read from Yahoo and
 * crypto pairs on chosen exchanges (ccxt), mixed, each market evaluated and notified on its own.
 */

export const WATCHLIST_MAX = 100;
/** The exchanges a watchlist may name, as ccxt ids, with the names people know. */
export const WATCHLIST_EXCHANGES = ['binance', 'coinbase', 'kraken', 'kucoin', 'htx'] as const satisfies readonly TMarketSource[];
export type TWatchlistExchange = (typeof WATCHLIST_EXCHANGES)[number];
export const WATCHLIST_EXCHANGE_LABELS: Record<TWatchlistExchange, string> = {
  binance: 'Binance',
  coinbase: 'Coinbase',
  kraken: 'Kraken',
  kucoin: 'KuCoin',
  htx: 'HTX (Huobi)',
};

const STOCK_RULE = 'A stock symbol must be 1 to 12 capital letters, digits or . ^ = - (e.g. AAPL, BRK-B)';
const PAIR_RULE = 'A crypto pair must be two symbols of 2 to 10 capital letters or digits joined by / (e.g. BTC/USDT)';

export const ZWatchedMarket = z.discriminatedUnion(
  'kind',
  [
    z.object({ kind: z.literal('stock'), symbol: z.string(STOCK_RULE).trim().toUpperCase().regex(/^[A-Z0-9.^=-]{1,12}$/, STOCK_RULE) }).strict(),
    z
      .object({
        kind: z.literal('crypto'),
        symbol: z.string(PAIR_RULE).trim().toUpperCase().regex(/^[A-Z0-9]{2,10}\/[A-Z0-9]{2,10}$/, PAIR_RULE),
        exchange: z.enum(WATCHLIST_EXCHANGES, `Exchange must be one of ${WATCHLIST_EXCHANGES.map((e) => WATCHLIST_EXCHANGE_LABELS[e]).join(', ')}`),
      })
      .strict(),
  ],
  { error: "Each market must be a stock or a crypto pair on an exchange" },
);
export type TWatchedMarket = z.infer<typeof ZWatchedMarket>;

/** How a run, a notification and the details name a market: 'AAPL', 'BTC/USDT on binance' (as the crypto template's runs do). */
export const watchedMarketLabel = (market: TWatchedMarket) => (market.kind === 'stock' ? market.symbol : `${market.symbol} on ${market.exchange}`);

export const ZWatchlist = z
  .array(ZWatchedMarket)
  .min(1, 'Add at least one market to watch')
  .max(WATCHLIST_MAX, `A watchlist may have at most ${WATCHLIST_MAX} markets`)
  .superRefine((list, ctx) => {
    const seen = new Set<string>();
    list.forEach((market, i) => {
      const label = watchedMarketLabel(market);
      if (seen.has(label)) ctx.addIssue({ code: 'custom', path: [i], message: `${label} is listed twice` });
      seen.add(label);
    });
  });
