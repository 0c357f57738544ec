import type { TCryptoMonitorParameters, TCustomMonitorParameters, TStockScannerParameters } from './agents.ts';
import type { TCandleTimeframe, TMarketSource } from './market.ts';

/**
 * The templates' options in market terms. Here, not in market.ts: the templates (agents.ts) name
 * what a run records (market.ts), so market.ts cannot import the templates back (an import
 * circle, which the layer lint refuses).
 */

/** The templates' timeframe parameter values (stock: 'hourly', crypto: '1h', ...) as candle sizes:
 * every option of every template, so a new option cannot go unmapped. */
export const TEMPLATE_TIMEFRAMES: Record<TStockScannerParameters['timeframe'] | TCryptoMonitorParameters['timeframe'] | TCustomMonitorParameters['timeframe'], TCandleTimeframe> = {
  '1min': '1m',
  '5min': '5m',
  '15min': '15m',
  '30min': '30m',
  hourly: '1h',
  '1h': '1h',
  '4h': '4h',
  daily: '1d',
  '1d': '1d',
  weekly: '1w',
  '1w': '1w',
};

/** The crypto template's exchange option names as ccxt ids (Huobi is ccxt's htx; FTX is closed). */
export const EXCHANGE_SOURCES: Record<TCryptoMonitorParameters['exchanges'][number], TMarketSource | null> = {
  Binance: 'binance',
  Coinbase: 'coinbase',
  Kraken: 'kraken',
  KuCoin: 'kucoin',
  Huobi: 'htx',
  FTX: null,
};
