import type * as Ccxt from 'ccxt';
import type { Exchange } from 'ccxt';
import { CANDLE_TIMEFRAMES, TIMEFRAME_MS, type TCandle, type TCandleTimeframe } from '../../../contracts/market.ts';
import { MARKET_HOSTS, type MarketConfig } from '../../config.ts';
import { MarketDataError, type CandleSource } from './candle-source.ts';
import { collectHistory } from './history-paging.ts';
import {
  aggregateCandles,
  candleOpen,
  DEFAULT_BACKOFF_MS,
  failureForStatus,
  ProviderHttpError,
  retryAfterMs,
  truncate,
  WEEK_OFFSET_MS,
  withRetries,
  type Failure,
} from './policy.ts';
import { RequestGate } from './request-gate.ts';

/**
 * Candles from the crypto exchanges through ccxt. One ccxt instance per exchange (and base URL)
 * lives for the process, so its markets are loaded once and its rate limiter sees every call.
 */

export type ExchangeSource = 'binance' | 'coinbase' | 'kraken' | 'kucoin' | 'htx';

type ExchangeInfo = {
  /** The ccxt class. Coinbase is the Coinbase Exchange API (public candles, no key), ccxt's coinbaseexchange. */
  ccxtId: 'binance' | 'coinbaseexchange' | 'kraken' | 'kucoin' | 'htx';
  name: string;
  /** The quote a token is usually listed against there. */
  quote: 'USDT' | 'USD';
  /** ccxt options that keep market loading to the spot lists (no futures, tickers or fees). */
  options: Record<string, unknown>;
};

export const EXCHANGES: Record<ExchangeSource, ExchangeInfo> = {
  binance: { ccxtId: 'binance', name: 'Binance', quote: 'USDT', options: { fetchMarkets: { types: ['spot'] } } },
  coinbase: { ccxtId: 'coinbaseexchange', name: 'Coinbase', quote: 'USD', options: {} },
  kraken: { ccxtId: 'kraken', name: 'Kraken', quote: 'USD', options: {} },
  kucoin: { ccxtId: 'kucoin', name: 'KuCoin', quote: 'USDT', options: { fetchMarkets: { types: ['spot'], fetchTickersFees: false } } },
  htx: { ccxtId: 'htx', name: 'HTX', quote: 'USDT', options: { fetchMarkets: { types: { spot: true, linear: false, inverse: false } } } },
};

export function isExchangeSource(source: string): source is ExchangeSource {
  return Object.hasOwn(EXCHANGES, source);
}

/** 'btc' on Binance → 'BTC/USDT', on Kraken → 'BTC/USD'; a full pair ('ETH/BTC') is kept. */
export function exchangeSymbol(source: ExchangeSource, token: string): string {
  const upper = token.trim().toUpperCase();
  return upper.includes('/') ? upper : `${upper}/${EXCHANGES[source].quote}`;
}

/**
 * The most candles one OHLCV request returns, from each exchange's API documentation (and ccxt's
 * own cap): Binance's klines 1000, Coinbase Exchange's candles 300 (more in the range is refused),
 * Kraken's OHLC 720 (and never older than its latest 720, whatever `since` says), KuCoin's
 * candles 1500, HTX's history candles 1000.
 */
export const HISTORY_PAGE_CANDLES: Record<ExchangeSource, number> = { binance: 1000, coinbase: 300, kraken: 720, kucoin: 1500, htx: 1000 };

/** Markets are reloaded this often (new listings); a failed reload keeps the old list. */
const MARKETS_TTL_MS = 6 * 60 * 60_000;

type CcxtModule = typeof Ccxt;
type Entry = { exchange: Exchange; loadedAt: number; loading: Promise<void> | null };

// ccxt weighs ~1 s to import (every exchange it knows): loaded on the first live crypto request.
let ccxtModule: Promise<CcxtModule> | null = null;
const instances = new Map<string, Promise<Entry>>();
/** Per ccxt instance: who goes first, live runs or history pages (its rest is the exchange's spacing once known). */
const gates = new Map<string, { gate: RequestGate; restMs: number }>();

function gateFor(key: string): { gate: RequestGate; restMs: number } {
  let found = gates.get(key);
  if (!found) {
    const holder: { gate: RequestGate; restMs: number } = { gate: new RequestGate(() => holder.restMs), restMs: 0 };
    gates.set(key, holder);
    found = holder;
  }
  return found;
}

export type CcxtSourceOptions = {
  /** The first retry's backoff (tests use a few ms). */
  backoffMs?: number;
  /** ccxt's spacing between requests in ms, instead of the exchange's own (tests only: Kraken's is 1 s). */
  rateLimitMs?: number;
};

export function createCcxtSource(source: ExchangeSource, config: MarketConfig, options: CcxtSourceOptions = {}): CandleSource {
  const info = EXCHANGES[source];
  const baseUrl = config.baseUrls[source];
  const key = `${source}|${baseUrl ?? ''}|${config.timeoutMs}|${options.rateLimitMs ?? ''}`;
  const policy = { retries: config.retries, timeoutMs: config.timeoutMs, backoffMs: options.backoffMs ?? DEFAULT_BACKOFF_MS };

  const gated = gateFor(key);
  const entry = () => {
    let found = instances.get(key);
    if (!found) {
      found = newEntry(source, baseUrl, config.timeoutMs, options.rateLimitMs).then((e) => {
        gated.restMs = e.exchange.rateLimit ?? 0;
        return e;
      });
      // A failed start (ccxt failing to load) must not stick: the next call tries again.
      found.catch(() => instances.delete(key));
      instances.set(key, found);
    }
    return found;
  };

  /** One OHLCV request, retried by the policy (`since` undefined: the latest candles). */
  const fetchRows = async (e: Entry, symbol: string, timeframe: TCandleTimeframe, since: number | undefined, limit: number, signal: AbortSignal) => {
    const ccxt = await ccxtModule!; // loaded by entry()
    const rows = await withRetries({
      source,
      name: info.name,
      policy,
      // One attempt may load the markets first (two requests on some exchanges) and wait for
      // the rate limiter; ccxt times each request itself, this only bounds the whole.
      attemptTimeoutMs: config.timeoutMs * 4,
      signal,
      attempt: async () => {
        await ensureMarkets(e);
        return e.exchange.fetchOHLCV(symbol, timeframe, since, limit);
      },
      classify: (err) => classify(err, ccxt, info.name, symbol),
    });
    return toCandles(rows);
  };

  return {
    id: source,
    fetchCandles(request, signal) {
      // Counted as live before the first await, so a history page asked for later waits for it.
      return gated.gate.runLive(async () => {
        const e = await entry();
        const plan = fetchPlan(e.exchange, request.timeframe, request.limit);
        if (!plan) throw unsupported(source, info.name, request.timeframe);
        const candles = await fetchRows(e, request.symbol, plan.timeframe, undefined, plan.limit, signal);
        const merged = plan.factor === 1 ? candles : aggregateCandles(candles, TIMEFRAME_MS[request.timeframe], request.timeframe === '1w' ? WEEK_OFFSET_MS : 0, true);
        return merged.slice(-request.limit);
      });
    },

    historyStart(timeframe, candles, nowMs) {
      const step = TIMEFRAME_MS[timeframe];
      return candleOpen(nowMs, timeframe) - (Math.max(1, candles) - 1) * step;
    },

    async fetchHistory(request, { signal, onPage }) {
      let e: Entry;
      try {
        e = await entry();
      } catch (err) {
        const ccxt = await ccxtModule?.catch(() => null);
        const failure = ccxt ? classify(err, ccxt, info.name, request.symbol) : { failure: 'internal' as const, cause: { error: String(err) } };
        return { candles: [], failure: new MarketDataError(source, failure.failure, { ...failure.cause, detail: failure.detail ?? `${info.name} could not be loaded` }) };
      }
      const plan = fetchPlan(e.exchange, request.timeframe, 1);
      if (!plan) return { candles: [], failure: unsupported(source, info.name, request.timeframe) };
      const step = TIMEFRAME_MS[plan.timeframe];
      // The last open time wanted, in the fetched timeframe (the end of the requested candle).
      const end = request.until + TIMEFRAME_MS[request.timeframe] - step;
      const paging = await collectHistory({
        source,
        name: info.name,
        gate: gated.gate,
        signal,
        onPage: onPage && ((received) => onPage(Math.floor(received / plan.factor))),
        async pages(page, keep) {
          // Forward from the oldest wanted candle: each page starts after the previous one's
          // last candle; a page with none (a range before the listing) moves on by a page.
          let since = request.from;
          while (since <= end) {
            const limit = Math.min(HISTORY_PAGE_CANDLES[source], Math.floor((end - since) / step) + 1);
            const candles = await page(() => fetchRows(e, request.symbol, plan.timeframe, since, limit, signal));
            keep(candles);
            const last = candles.at(-1)?.time;
            if (last !== undefined && last >= end) break;
            since = last !== undefined && last >= since ? last + step : since + limit * step;
          }
        },
      });
      if (plan.factor === 1) return paging;
      const offset = request.timeframe === '1w' ? WEEK_OFFSET_MS : 0;
      return { ...paging, candles: aggregateCandles(paging.candles, TIMEFRAME_MS[request.timeframe], offset, true) };
    },
  };
}

async function newEntry(source: ExchangeSource, baseUrl: string | undefined, timeoutMs: number, rateLimitMs: number | undefined): Promise<Entry> {
  ccxtModule ??= import('ccxt');
  const ccxt = await ccxtModule.catch((err: unknown) => {
    ccxtModule = null;
    throw err;
  });
  const info = EXCHANGES[source];
  const exchange: Exchange = new ccxt[info.ccxtId]({
    enableRateLimit: true,
    timeout: timeoutMs,
    options: info.options,
    ...(rateLimitMs === undefined ? {} : { rateLimit: rateLimitMs }),
  });
  if (baseUrl) exchange.urls.api = overrideApiUrls(exchange.urls.api, baseUrl, exchange.hostname) as typeof exchange.urls.api;
  guardHosts(exchange, baseUrl ? [new URL(baseUrl).origin] : MARKET_HOSTS[source].map((host) => `https://${host}`));
  decideOnStatus(exchange);
  return { exchange, loadedAt: 0, loading: null };
}

/**
 * Points every API group at `baseUrl`, keeping each group's path ('/api/v3', '/sapi/v1', ...),
 * so a fake serving the paths under one prefix answers whichever group ccxt picks.
 */
export function overrideApiUrls(api: unknown, baseUrl: string, hostname?: string): unknown {
  if (typeof api === 'string') {
    const url = new URL(api.replaceAll('{hostname}', hostname ?? 'localhost'));
    return `${baseUrl}${url.pathname.replace(/\/+$/, '')}`;
  }
  if (api && typeof api === 'object') {
    return Object.fromEntries(Object.entries(api).map(([group, value]) => [group, overrideApiUrls(value, baseUrl, hostname)]));
  }
  return api;
}

/** Refuses any request to an origin other than the exchange's fixed hosts (or the configured fake). */
function guardHosts(exchange: Exchange, origins: string[]): void {
  const fetch = exchange.fetch.bind(exchange);
  exchange.fetch = (url: string, method?: string, headers?: unknown, body?: unknown) => {
    const origin = new URL(url).origin;
    if (!origins.includes(origin)) return Promise.reject(new HostNotAllowed(origin));
    return fetch(url, method, headers, body);
  };
}

class HostNotAllowed extends Error {
  constructor(origin: string) {
    super(`refused to call ${origin}: not one of the provider's hosts`);
    this.name = 'HostNotAllowed';
  }
}

/**
 * Retrying is decided on the HTTP status first: exchanges wrap 5xx in their own codes (Binance's
 * -1001 maps to a plain ExchangeError), and ccxt maps 4xx such as 404 to ExchangeNotAvailable.
 */
function decideOnStatus(exchange: Exchange): void {
  const handleErrors = exchange.handleErrors.bind(exchange);
  exchange.handleErrors = (status, statusText, url, method, responseHeaders, responseBody, response, requestHeaders, requestBody) => {
    if (status === 429 || status === 418 || status >= 500) throw new ProviderHttpError(status, String(responseBody ?? ''), retryAfterMs(responseHeaders as Record<string, unknown>));
    const handled = handleErrors(status, statusText, url, method, responseHeaders, responseBody, response, requestHeaders, requestBody);
    if (handled === undefined && status >= 400) throw new ProviderHttpError(status, String(responseBody ?? ''));
    return handled;
  };
}

async function ensureMarkets(e: Entry): Promise<void> {
  const fresh = e.exchange.markets && Date.now() - e.loadedAt < MARKETS_TTL_MS;
  if (fresh) return;
  e.loading ??= e.exchange
    .loadMarkets(true)
    .then(() => {
      e.loadedAt = Date.now();
    })
    .finally(() => {
      e.loading = null;
    });
  try {
    await e.loading;
  } catch (err) {
    if (!e.exchange.markets) throw err; // a stale list still serves
  }
}

/** Which of the exchange's timeframes to fetch, and how many to merge into one of ours. */
function fetchPlan(exchange: Exchange, timeframe: TCandleTimeframe, limit: number): { timeframe: TCandleTimeframe; factor: number; limit: number } | null {
  const offered = (tf: TCandleTimeframe) => Boolean((exchange.timeframes as Record<string, unknown> | undefined)?.[tf]);
  if (offered(timeframe)) return { timeframe, factor: 1, limit };
  // E.g. Coinbase has no 30m, 4h or 1w: merge 15m, 1h or 1d candles.
  const smaller = CANDLE_TIMEFRAMES.filter((tf) => TIMEFRAME_MS[tf] < TIMEFRAME_MS[timeframe] && TIMEFRAME_MS[timeframe] % TIMEFRAME_MS[tf] === 0 && offered(tf));
  const base = smaller.at(-1);
  if (!base) return null;
  const factor = TIMEFRAME_MS[timeframe] / TIMEFRAME_MS[base];
  return { timeframe: base, factor, limit: (limit + 1) * factor };
}

function unsupported(source: ExchangeSource, name: string, timeframe: TCandleTimeframe) {
  return new MarketDataError(source, 'unsupported-timeframe', { detail: `${name} does not offer ${timeframe} candles` });
}

/** ccxt's rows ([time, open, high, low, close, volume]) as candles, skipping incomplete ones. */
function toCandles(rows: ReadonlyArray<ReadonlyArray<number | undefined>>): TCandle[] {
  const candles: TCandle[] = [];
  for (const [time, open, high, low, close, volume] of rows) {
    if (![time, open, high, low, close].every((v) => typeof v === 'number' && Number.isFinite(v))) continue;
    candles.push({ time: time!, open: open!, high: high!, low: low!, close: close!, volume: Number.isFinite(volume) ? volume! : 0 });
  }
  return candles;
}

function classify(err: unknown, ccxt: CcxtModule, name: string, symbol: string): Failure {
  if (err instanceof ProviderHttpError) {
    const failure = failureForStatus(err.status, err.body, err.retryAfterMs);
    return failure.failure === 'provider-error' ? { ...failure, detail: `${name} refused the request (HTTP ${err.status})` } : failure;
  }
  const error = err instanceof Error ? err : new Error(String(err));
  // ccxt's messages quote the exchange's answer: the log's, never the user's.
  const cause = { error: error.name, message: truncate(error.message) };
  if (error instanceof ccxt.RateLimitExceeded || error instanceof ccxt.DDoSProtection) return { failure: 'rate-limited', cause };
  if (error instanceof ccxt.RequestTimeout) return { failure: 'timeout', cause };
  if (error instanceof ccxt.BadSymbol) return { failure: 'unknown-symbol', detail: `${name} does not list ${symbol}`, cause };
  if (error instanceof ccxt.ExchangeNotAvailable || error instanceof ccxt.OnMaintenance) return { failure: 'unavailable', cause };
  // Connection refused, reset, DNS: ccxt's NetworkError.
  if (error instanceof ccxt.NetworkError) return { failure: 'unreachable', cause };
  if (error instanceof HostNotAllowed) return { failure: 'unreachable', detail: `${name} is not reachable from here (host not allowed)`, cause };
  return { failure: 'provider-error', detail: `${name} refused the request (${error.name})`, cause };
}
