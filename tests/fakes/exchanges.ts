/**
 * Fake crypto exchanges for tests: ONE real HTTP server on 127.0.0.1 that speaks enough of
 * each exchange's public REST API for ccxt to load its markets and fetch candles:
 *
 *   Binance   /binance   GET /api/v3/exchangeInfo, /api/v3/klines
 *   Kraken    /kraken    GET /0/public/Assets, /0/public/AssetPairs, /0/public/OHLC
 *   Coinbase  /coinbase  GET /currencies, /products, /products/{id}/candles   (Coinbase Exchange API)
 *   KuCoin    /kucoin    GET /api/v3/currencies, /api/v2/symbols, /api/v1/market/candles
 *   HTX       /htx       GET /v2/reference/currencies, /v1/common/symbols, /market/history/candles (or /kline)
 *
 * History as each exchange pages it (their API documentation): Binance's klines from `startTime`
 * forward, at most 1000 (from the first candle when asked from before the listing); Coinbase's
 * `start`/`end` ranges of at most 300 candles (a wider range is refused with its 400); Kraken only
 * its latest 720 candles, those after `since`; KuCoin's `startAt`/`endAt` ranges of at most 1500;
 * HTX's history candles from `from`, at most 1000. Binance's 429 carries Retry-After (seconds,
 * `setRetryAfter`), as Binance sends it.
 *
 * Markets: BTC, ETH and SOL against each exchange's usual quote (USDT on Binance, KuCoin and
 * HTX; USD on Kraken and Coinbase), plus ETH/BTC on Binance. Candles are deterministic
 * (`fakeCandle`: two sines around the asset's price plus a slow trend) over the requested range,
 * the last one being the current (forming) candle.
 *
 * Faults per exchange, set at runtime: '429' and '500' answer that status in the exchange's
 * error format; 'bad-request' and 'unknown-symbol' answer as the exchange refuses a malformed
 * request or a pair it does not list (Binance -1100 / -1121, Kraken EGeneral / EQuery, ...);
 * 'hang' never answers; 'flaky' picks 429, 500 or hang at random (seeded) with a given
 * probability. `failNext(exchange, n, fault)` fails only the next n requests.
 * `setErrorText(exchange, text)` puts `text` where the exchange writes its human-readable error
 * message (Binance `msg`, Kraken's error string after the category, Coinbase `message`, ...), so
 * a test can follow a provider's words. `setSeries(base, candles)` serves hand-written candles
 * for one asset on every exchange, so a test can work its numbers out by hand. Requests are recorded with their kind ('markets' for
 * the market lists, 'candles', 'other').
 *
 * Standalone (for Playwright): `node tests/fakes/exchanges.ts` prints the env lines (KEY=value)
 * that point the server at it. FAKE_EXCHANGES_PORT picks the port (default random). A separate
 * process is steered over HTTP: POST /__control/fault {exchange, fault, probability?, seed?},
 * POST /__control/fail-next {exchange, count, fault?}, POST /__control/error-text {exchange, text},
 * POST /__control/series {base, candles} (setSeries),
 * POST /__control/freeze {exchange, at} (at: epoch ms, or null), GET /__control/requests, POST /__control/reset.
 */
import { readJson, runStandalone, sendJson, startFakeHttpServer } from './http.ts';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { TCandle } from '../../contracts/market.ts';
import { mulberry32 } from '../support/seeded-random.ts';

export const FAKE_EXCHANGES = ['binance', 'coinbase', 'kraken', 'kucoin', 'htx'] as const;
export type FakeExchange = (typeof FAKE_EXCHANGES)[number];

export const FAKE_MARKET_FAULTS = ['none', '429', '500', 'bad-request', 'unknown-symbol', 'hang', 'flaky'] as const;
export type FakeMarketFault = (typeof FAKE_MARKET_FAULTS)[number];
export const FAKE_FAILURES = ['429', '500', 'bad-request', 'unknown-symbol', 'hang'] as const;
/** What one request suffers. */
export type FakeFailure = (typeof FAKE_FAILURES)[number];

export type FakeExchangeRequest = {
  exchange: FakeExchange;
  method: string;
  path: string;
  query: Record<string, string>;
  kind: 'markets' | 'candles' | 'other';
  /** What the fake did: the status it answered, or 'hang'. */
  outcome: number | 'hang';
  /** When it arrived (epoch ms). */
  at: number;
};

export type FakeExchanges = {
  /** Each exchange's base URL (the server's *_BASE_URL). */
  baseUrls: Record<FakeExchange, string>;
  /** BINANCE_BASE_URL, COINBASE_BASE_URL, KRAKEN_BASE_URL, KUCOIN_BASE_URL, HTX_BASE_URL. */
  env: Record<string, string>;
  setFault(exchange: FakeExchange, fault: FakeMarketFault, options?: { probability?: number; seed?: number }): void;
  /** The next `count` requests to `exchange` fail with `fault`; later ones follow setFault. */
  failNext(exchange: FakeExchange, count: number, fault?: FakeFailure): void;
  /** The exchange's error messages say `text` (null: its usual words) until reset. */
  setErrorText(exchange: FakeExchange, text: string | null): void;
  /** The exchange's feed froze at `at` (epoch ms): it answers as usual, with no candle after it,
   * as an exchange whose market data stopped updating does; null: live again. Reset clears it. */
  freeze(exchange: FakeExchange, at: number | null): void;
  /** The exchange's pairs were listed at `at` (epoch ms): no candles before it, as a new listing
   * has; null: listed long ago. Reset clears it. */
  listSince(exchange: FakeExchange, at: number | null): void;
  /** The Retry-After (whole seconds) on the exchange's 429s where it sends one (Binance); default 1. Reset restores it. */
  setRetryAfter(exchange: FakeExchange, seconds: number): void;
  requests(exchange?: FakeExchange): FakeExchangeRequest[];
  /** Every exchange serves `candles` (oldest first) for `base` (e.g. 'BTC'), the last one as the
   * current candle and the first one repeated before them; null: the usual sines again. */
  setSeries(base: string, candles: ScriptedCandle[] | null): void;
  reset(): void;
  close(): Promise<void>;
};

// --- faults (shared with the Yahoo fake) ----------------------------------------------------

export type FaultState = {
  fault: FakeMarketFault;
  probability: number;
  random: () => number;
  next: { fault: FakeFailure; remaining: number };
  /** What the provider's error messages say instead of its usual words (null: the usual). */
  errorText: string | null;
};

export function newFaultState(): FaultState {
  return { fault: 'none', probability: 0.5, random: mulberry32(1), next: { fault: '429', remaining: 0 }, errorText: null };
}

export function setFaultState(state: FaultState, fault: FakeMarketFault, options: { probability?: number; seed?: number } = {}): void {
  state.fault = fault;
  state.probability = options.probability ?? 0.5;
  state.random = mulberry32(options.seed ?? 1);
}

/** The failure this request suffers, if any (counting down a failNext first). */
export function pickFailure(state: FaultState): FakeFailure | null {
  if (state.next.remaining > 0) {
    state.next.remaining--;
    return state.next.fault;
  }
  if (state.fault === 'none') return null;
  if (state.fault !== 'flaky') return state.fault;
  if (state.random() >= state.probability) return null;
  // Flaky means the failures that pass: never a refusal.
  const failures: FakeFailure[] = ['429', '500', 'hang'];
  return failures[Math.floor(state.random() * failures.length)]!;
}

// --- candles (shared with the Yahoo fake) ---------------------------------------------------

const DAY = 86_400_000;
/** Weekly candles open on Monday 00:00 UTC; the epoch was a Thursday. */
const WEEK_OFFSET = 4 * DAY;

/** Open time of the candle holding `time`. */
export function candleOpen(time: number, intervalMs: number): number {
  const offset = intervalMs === 7 * DAY ? WEEK_OFFSET : 0;
  return Math.floor((time - offset) / intervalMs) * intervalMs + offset;
}

/** The asset's price level around `time`: two sines (one of them slow, the trend). */
function level(base: number, time: number, intervalMs: number): number {
  return base * (1 + 0.02 * Math.sin(time / (9 * intervalMs)) + 0.05 * Math.sin((2 * Math.PI * time) / (30 * DAY)));
}

const roundPrice = (p: number) => (p >= 1 ? Math.round(p * 100) / 100 : Math.round(p * 1e6) / 1e6);

/** The fake's candle opening at `time` (a multiple of the interval) for an asset priced ~`base`. */
export function fakeCandle(base: number, time: number, intervalMs: number): TCandle {
  const open = roundPrice(level(base, time, intervalMs));
  const close = roundPrice(level(base, time + intervalMs, intervalMs));
  return {
    time,
    open,
    high: roundPrice(Math.max(open, close) * 1.001),
    low: roundPrice(Math.min(open, close) * 0.999),
    close,
    volume: Math.round((10 + 5 * (1 + Math.sin(time / intervalMs))) * 1000) / 1000,
  };
}

/** What an exchange's candles span: up to `now` (a frozen feed: when it froze), from `listedAt`. */
type FeedSpan = { now: number; listedAt: number };

/**
 * Open times of the candles an exchange returns: from `start` forward (at most `limit`), or the
 * last `limit` ending at `end`; never past the current candle, nor before the market was listed.
 */
export function candleTimes(intervalMs: number, range: { start?: number; end?: number; limit: number }, now = Date.now(), listedAt = -Infinity): number[] {
  const first = candleOpen(listedAt, intervalMs);
  // Asked from before the listing, an exchange answers from its first candle on (as Binance does).
  const start = range.start !== undefined && range.start < first ? first : range.start;
  return candleTimesUpTo(intervalMs, { ...range, start }, now).filter((t) => !(t < first));
}

function candleTimesUpTo(intervalMs: number, range: { start?: number; end?: number; limit: number }, now: number): number[] {
  const last = candleOpen(Math.min(range.end ?? now, now), intervalMs);
  const times: number[] = [];
  if (range.start !== undefined) {
    const first = candleOpen(range.start + intervalMs - 1, intervalMs);
    for (let t = first; t <= last && times.length < range.limit; t += intervalMs) times.push(t);
  } else {
    for (let t = last, n = 0; n < range.limit; t -= intervalMs, n++) times.unshift(t);
  }
  return times;
}

/** A hand-written candle: open is the previous close, high and low default to the close. */
export type ScriptedCandle = { close: number; high?: number; low?: number; volume: number };

type CandleOf = (pair: Pair, time: number, intervalMs: number) => TCandle;

/** Candles of the scripted series where one is set, counted back from the current candle at the fake's clock (`now`, the test's when it moves its app's clock). */
function candleSource(series: ReadonlyMap<string, ScriptedCandle[]>, now = Date.now()): CandleOf {
  return (pair, time, intervalMs) => {
    const script = series.get(pair.base);
    if (!script || script.length === 0) return fakeCandle(pair.price, time, intervalMs);
    const back = Math.round((candleOpen(now, intervalMs) - time) / intervalMs);
    const at = (k: number) => script[Math.max(0, script.length - 1 - k)]!;
    const c = at(back);
    return { time, open: at(back + 1).close, high: c.high ?? c.close, low: c.low ?? c.close, close: c.close, volume: c.volume };
  };
}

// --- markets --------------------------------------------------------------------------------

/** Price levels of the listed assets. */
export const FAKE_PRICES: Record<string, number> = { BTC: 60_000, ETH: 3_000, SOL: 150 };
const BASES = Object.keys(FAKE_PRICES);
const KRAKEN_ASSETS: Record<string, { id: string; altname: string }> = {
  BTC: { id: 'XXBT', altname: 'XBT' },
  ETH: { id: 'XETH', altname: 'ETH' },
  SOL: { id: 'SOL', altname: 'SOL' },
  USD: { id: 'ZUSD', altname: 'USD' },
};

type Pair = { base: string; quote: string; price: number };
const pairs = (quote: string): Pair[] => BASES.map((base) => ({ base, quote, price: FAKE_PRICES[base]! }));
const PAIRS: Record<FakeExchange, Pair[]> = {
  binance: [...pairs('USDT'), { base: 'ETH', quote: 'BTC', price: FAKE_PRICES.ETH! / FAKE_PRICES.BTC! }],
  coinbase: pairs('USD'),
  kraken: pairs('USD'),
  kucoin: pairs('USDT'),
  htx: pairs('USDT'),
};

const MINUTE = 60_000;
const BINANCE_INTERVALS: Record<string, number> = { '1m': MINUTE, '5m': 5 * MINUTE, '15m': 15 * MINUTE, '30m': 30 * MINUTE, '1h': 60 * MINUTE, '4h': 240 * MINUTE, '1d': DAY, '1w': 7 * DAY };
const KUCOIN_INTERVALS: Record<string, number> = { '1min': MINUTE, '5min': 5 * MINUTE, '15min': 15 * MINUTE, '30min': 30 * MINUTE, '1hour': 60 * MINUTE, '4hour': 240 * MINUTE, '1day': DAY, '1week': 7 * DAY };
const HTX_INTERVALS: Record<string, number> = { '1min': MINUTE, '5min': 5 * MINUTE, '15min': 15 * MINUTE, '30min': 30 * MINUTE, '60min': 60 * MINUTE, '4hour': 240 * MINUTE, '1day': DAY, '1week': 7 * DAY };
const COINBASE_GRANULARITIES = new Set([60, 300, 900, 3600, 21600, 86400]);
const KRAKEN_MINUTES = new Set([1, 5, 15, 30, 60, 240, 1440, 10080, 21600]);

// --- server ---------------------------------------------------------------------------------

type State = {
  faults: Map<FakeExchange, FaultState>;
  requests: FakeExchangeRequest[];
  /** Scripted candles per base (setSeries), in place of the usual sines. */
  series: Map<string, ScriptedCandle[]>;
  /** The time the candles run up to: the test's clock, when it moves its app's clock. */
  clock: () => number;
  /** Exchanges whose feed froze: their candles stop at this time. */
  frozenAt: Map<FakeExchange, number>;
  /** Exchanges whose pairs were listed at this time: no candle before it. */
  listedAt: Map<FakeExchange, number>;
  /** The Retry-After (seconds) an exchange that sends one puts on its 429s (default 1). */
  retryAfter: Map<FakeExchange, number>;
};

export function fakeExchangeBaseUrls(root: string): Record<FakeExchange, string> {
  return Object.fromEntries(FAKE_EXCHANGES.map((id) => [id, `${root}/${id}`])) as Record<FakeExchange, string>;
}

/** The server's environment for a fake at `root` (http://127.0.0.1:PORT). */
export function fakeExchangesEnv(root: string): Record<string, string> {
  const urls = fakeExchangeBaseUrls(root);
  return {
    BINANCE_BASE_URL: urls.binance,
    COINBASE_BASE_URL: urls.coinbase,
    KRAKEN_BASE_URL: urls.kraken,
    KUCOIN_BASE_URL: urls.kucoin,
    HTX_BASE_URL: urls.htx,
  };
}

export async function startFakeExchanges(options: { port?: number; now?: () => number } = {}): Promise<FakeExchanges> {
  const state: State = {
    faults: new Map(FAKE_EXCHANGES.map((id) => [id, newFaultState()])),
    requests: [],
    series: new Map(),
    clock: options.now ?? Date.now,
    frozenAt: new Map(),
    listedAt: new Map(),
    retryAfter: new Map(),
  };
  const { root, close } = await startFakeHttpServer('fake exchanges', options.port ?? 0, (req, res) => handle(state, req, res));

  return {
    baseUrls: fakeExchangeBaseUrls(root),
    env: fakeExchangesEnv(root),
    setFault: (exchange, fault, faultOptions) => setFaultState(state.faults.get(exchange)!, fault, faultOptions),
    failNext(exchange, count, fault = '429') {
      state.faults.get(exchange)!.next = { fault, remaining: count };
    },
    setErrorText(exchange, text) {
      state.faults.get(exchange)!.errorText = text;
    },
    freeze(exchange, at) {
      if (at === null) state.frozenAt.delete(exchange);
      else state.frozenAt.set(exchange, at);
    },
    listSince(exchange, at) {
      if (at === null) state.listedAt.delete(exchange);
      else state.listedAt.set(exchange, at);
    },
    setRetryAfter(exchange, seconds) {
      state.retryAfter.set(exchange, seconds);
    },
    requests: (exchange) => state.requests.filter((r) => !exchange || r.exchange === exchange),
    setSeries(base, candles) {
      if (candles) state.series.set(base, candles);
      else state.series.delete(base);
    },
    reset: () => reset(state),
    close,
  };
}

function reset(state: State): void {
  for (const id of FAKE_EXCHANGES) state.faults.set(id, newFaultState());
  state.requests.length = 0;
  state.series.clear();
  state.frozenAt.clear();
  state.listedAt.clear();
  state.retryAfter.clear();
}

async function handle(state: State, req: IncomingMessage, res: ServerResponse): Promise<void> {
  const url = new URL(req.url ?? '/', 'http://fake');
  if (url.pathname.startsWith('/__control/')) return control(state, url.pathname, await readJson(req), res);

  const [, prefix = '', ...rest] = url.pathname.split('/');
  const exchange = FAKE_EXCHANGES.find((id) => id === prefix);
  if (!exchange) return sendJson(res, 404, { error: `fake: no exchange ${prefix}` });
  const path = `/${rest.join('/')}`;
  const query = Object.fromEntries(url.searchParams);
  const record: FakeExchangeRequest = { exchange, method: req.method ?? 'GET', path, query, kind: kindOf(exchange, path), outcome: 200, at: Date.now() };
  state.requests.push(record);

  const failure = pickFailure(state.faults.get(exchange)!);
  if (failure === 'hang') {
    record.outcome = 'hang';
    return; // never answers; close() or the client's timeout ends the socket
  }
  const errorText = state.faults.get(exchange)!.errorText;
  const span = { now: state.frozenAt.get(exchange) ?? state.clock(), listedAt: state.listedAt.get(exchange) ?? -Infinity };
  const answer = failure ? errorAnswer(exchange, failure, errorText, state.retryAfter.get(exchange) ?? 1) : route(exchange, path, query, errorText, candleSource(state.series, state.clock()), span);
  record.outcome = answer.status;
  sendJson(res, answer.status, answer.body, answer.headers);
}

function kindOf(exchange: FakeExchange, path: string): FakeExchangeRequest['kind'] {
  if (/klines|OHLC|candles|kline/.test(path)) return 'candles';
  const lists: Record<FakeExchange, string[]> = {
    binance: ['/api/v3/exchangeInfo'],
    kraken: ['/0/public/Assets', '/0/public/AssetPairs'],
    coinbase: ['/currencies', '/products'],
    kucoin: ['/api/v3/currencies', '/api/v2/symbols'],
    htx: ['/v2/reference/currencies', '/v1/common/symbols'],
  };
  return lists[exchange].includes(path) ? 'markets' : 'other';
}

type Answer = { status: number; body: unknown; headers?: Record<string, string> };

/**
 * A failure in the exchange's own error format (from their API documentation): the status,
 * the exchange's code, and its message, or `text` in its place.
 */
function errorAnswer(exchange: FakeExchange, failure: Exclude<FakeFailure, 'hang'>, text: string | null, retryAfterSeconds: number): Answer {
  const say = (usual: string) => text ?? usual;
  switch (exchange) {
    case 'binance': {
      const [status, code, msg] = {
        '429': [429, -1003, 'Too many requests; current limit is 6000 request weight per 1 MINUTE. Please use the websocket for live updates to avoid polling the API.'],
        '500': [500, -1001, 'Internal error; unable to process your request. Please try again.'],
        'bad-request': [400, -1100, "Illegal characters found in parameter 'symbol'; legal range is '^[A-Z0-9-_.]{1,20}$'."],
        'unknown-symbol': [400, -1121, 'Invalid symbol.'],
      }[failure] as [number, number, string];
      // Binance sends Retry-After (seconds) with every 429 and 418: how long until asking again is safe.
      const headers = status === 429 ? { 'retry-after': String(retryAfterSeconds) } : undefined;
      return { status, body: { code, msg: say(msg) }, ...(headers ? { headers } : {}) };
    }
    case 'kraken': {
      // Kraken refuses queries with 200 and "<severity><category>:<message>" strings.
      const [status, category, message] = {
        '429': [429, 'EAPI', 'Rate limit exceeded'],
        '500': [500, 'EService', 'Unavailable'],
        'bad-request': [200, 'EGeneral', 'Invalid arguments'],
        'unknown-symbol': [200, 'EQuery', 'Unknown asset pair'],
      }[failure] as [number, string, string];
      return { status, body: { error: [`${category}:${say(message)}`] } };
    }
    case 'coinbase': {
      const [status, message] = {
        '429': [429, 'Public rate limit exceeded'],
        '500': [500, 'Internal server error'],
        'bad-request': [400, 'Unsupported granularity'],
        'unknown-symbol': [404, 'NotFound'],
      }[failure] as [number, string];
      return { status, body: { message: say(message) } };
    }
    case 'kucoin': {
      const [status, code, msg] = {
        '429': [429, '429000', 'Too Many Requests'],
        '500': [500, '500000', 'Internal Server Error'],
        'bad-request': [200, '400100', 'Unsupported type'],
        'unknown-symbol': [200, '400100', 'This pair is not provided at present'],
      }[failure] as [number, string, string];
      return { status, body: { code, msg: say(msg) } };
    }
    case 'htx': {
      const [status, code, msg] = {
        '429': [429, 'too-many-request', 'Too many requests'],
        '500': [500, 'system-busy', 'System busy'],
        'bad-request': [200, 'invalid-parameter', 'invalid period'],
        'unknown-symbol': [200, 'invalid-parameter', 'invalid symbol'],
      }[failure] as [number, string, string];
      return { status, body: { status: 'error', 'err-code': code, 'err-msg': say(msg) } };
    }
  }
}

function route(exchange: FakeExchange, path: string, query: Record<string, string>, errorText: string | null, candleOf: CandleOf, span: FeedSpan): Answer {
  const handlers: Record<FakeExchange, (path: string, query: Record<string, string>, candleOf: CandleOf, span: FeedSpan) => Answer | null> = { binance, kraken, coinbase, kucoin, htx };
  const answer = handlers[exchange](path, query, candleOf, span) ?? { status: 404, body: { error: `fake ${exchange}: no route ${path}` } };
  // A refusal by the routes themselves (a pair or interval they do not know) says the text too.
  return errorText && answer.status !== 200 ? withErrorText(answer, errorText) : answer;
}

function withErrorText(answer: Answer, text: string): Answer {
  const body = answer.body as Record<string, unknown>;
  if ('msg' in body) return { ...answer, body: { ...body, msg: text } };
  if ('message' in body) return { ...answer, body: { ...body, message: text } };
  return answer;
}

const num = (value: string | undefined) => (value === undefined || value === '' ? undefined : Number(value));

// --- Binance --------------------------------------------------------------------------------

function binance(path: string, query: Record<string, string>, candleOf: CandleOf, span: FeedSpan): Answer | null {
  if (path === '/api/v3/exchangeInfo') {
    return {
      status: 200,
      body: {
        timezone: 'UTC',
        serverTime: Date.now(),
        rateLimits: [{ rateLimitType: 'REQUEST_WEIGHT', interval: 'MINUTE', intervalNum: 1, limit: 6000 }],
        exchangeFilters: [],
        symbols: PAIRS.binance.map((p) => ({
          symbol: `${p.base}${p.quote}`,
          status: 'TRADING',
          baseAsset: p.base,
          baseAssetPrecision: 8,
          quoteAsset: p.quote,
          quotePrecision: 8,
          quoteAssetPrecision: 8,
          orderTypes: ['LIMIT', 'MARKET'],
          icebergAllowed: true,
          ocoAllowed: true,
          isSpotTradingAllowed: true,
          isMarginTradingAllowed: false,
          filters: [
            { filterType: 'PRICE_FILTER', minPrice: '0.00000100', maxPrice: '1000000.00000000', tickSize: '0.00000100' },
            { filterType: 'LOT_SIZE', minQty: '0.00001000', maxQty: '9000.00000000', stepSize: '0.00001000' },
          ],
          permissions: [],
          permissionSets: [['SPOT']],
        })),
      },
    };
  }
  if (path === '/api/v3/klines') {
    const pair = PAIRS.binance.find((p) => `${p.base}${p.quote}` === query.symbol);
    if (!pair) return { status: 400, body: { code: -1121, msg: 'Invalid symbol.' } };
    const interval = BINANCE_INTERVALS[query.interval ?? ''];
    if (!interval) return { status: 400, body: { code: -1120, msg: 'Invalid interval.' } };
    const limit = Math.min(num(query.limit) ?? 500, 1000);
    const times = candleTimes(interval, { start: num(query.startTime), end: num(query.endTime), limit }, span.now, span.listedAt);
    return {
      status: 200,
      body: times.map((t) => {
        const c = candleOf(pair, t, interval);
        return [t, String(c.open), String(c.high), String(c.low), String(c.close), String(c.volume), t + interval - 1, String(c.volume * c.close), 100, '0', '0', '0'];
      }),
    };
  }
  return null;
}

// --- Kraken ---------------------------------------------------------------------------------

const krakenPairId = (p: Pair) => {
  const base = KRAKEN_ASSETS[p.base]!;
  const quote = KRAKEN_ASSETS[p.quote]!;
  return base.id.length === 4 && quote.id.length === 4 ? `${base.id}${quote.id}` : `${base.altname}${quote.altname}`;
};

function kraken(path: string, query: Record<string, string>, candleOf: CandleOf, span: FeedSpan): Answer | null {
  if (path === '/0/public/Assets') {
    const result = Object.fromEntries(
      Object.values(KRAKEN_ASSETS).map((a) => [a.id, { aclass: 'currency', altname: a.altname, decimals: 10, display_decimals: 5, collateral_value: 1, status: 'enabled' }]),
    );
    return { status: 200, body: { error: [], result } };
  }
  if (path === '/0/public/AssetPairs') {
    const result = Object.fromEntries(
      PAIRS.kraken.map((p) => {
        const base = KRAKEN_ASSETS[p.base]!;
        const quote = KRAKEN_ASSETS[p.quote]!;
        return [
          krakenPairId(p),
          {
            altname: `${base.altname}${quote.altname}`,
            wsname: `${base.altname}/${quote.altname}`,
            aclass_base: 'currency',
            base: base.id,
            aclass_quote: 'currency',
            quote: quote.id,
            lot: 'unit',
            cost_decimals: 5,
            pair_decimals: 1,
            lot_decimals: 8,
            lot_multiplier: 1,
            leverage_buy: [],
            leverage_sell: [],
            fees: [[0, 0.4]],
            fees_maker: [[0, 0.25]],
            fee_volume_currency: 'ZUSD',
            margin_call: 80,
            margin_stop: 40,
            ordermin: '0.0001',
            costmin: '0.5',
            tick_size: '0.1',
            status: 'online',
          },
        ];
      }),
    );
    return { status: 200, body: { error: [], result } };
  }
  if (path === '/0/public/OHLC') {
    const pair = PAIRS.kraken.find((p) => krakenPairId(p) === query.pair || `${KRAKEN_ASSETS[p.base]!.altname}${KRAKEN_ASSETS[p.quote]!.altname}` === query.pair);
    if (!pair) return { status: 200, body: { error: ['EQuery:Unknown asset pair'] } };
    const minutes = num(query.interval) ?? 1;
    if (!KRAKEN_MINUTES.has(minutes)) return { status: 200, body: { error: ['EGeneral:Invalid arguments'] } };
    const interval = minutes * MINUTE;
    // Kraken keeps only its latest 720 candles, whatever `since` says ("older data cannot be
    // retrieved"), and answers those after `since` (seconds), the current one always included.
    const since = num(query.since);
    const times = candleTimes(interval, { limit: 720 }, span.now, span.listedAt).filter((t, i, all) => since === undefined || t > since * 1000 || i === all.length - 1);
    const rows = times.map((t) => {
      const c = candleOf(pair, t, interval);
      return [t / 1000, String(c.open), String(c.high), String(c.low), String(c.close), String(c.close), String(c.volume), 42];
    });
    return { status: 200, body: { error: [], result: { [krakenPairId(pair)]: rows, last: (times.at(-1) ?? 0) / 1000 } } };
  }
  return null;
}

// --- Coinbase Exchange ----------------------------------------------------------------------

function coinbase(path: string, query: Record<string, string>, candleOf: CandleOf, span: FeedSpan): Answer | null {
  if (path === '/currencies') {
    const codes = [...BASES, 'USD'];
    return {
      status: 200,
      body: codes.map((code) => ({
        id: code,
        name: code,
        min_size: '0.00000001',
        status: 'online',
        message: '',
        max_precision: code === 'USD' ? '0.01' : '0.00000001',
        convertible_to: [],
        details: { type: code === 'USD' ? 'fiat' : 'crypto', symbol: '', network_confirmations: 1, sort_order: 1, push_payment_methods: [], min_withdrawal_amount: 0.0001, max_withdrawal_amount: 1000 },
        default_network: '',
        supported_networks: [],
      })),
    };
  }
  if (path === '/products') {
    return {
      status: 200,
      body: PAIRS.coinbase.map((p) => ({
        id: `${p.base}-${p.quote}`,
        base_currency: p.base,
        quote_currency: p.quote,
        quote_increment: '0.01',
        base_increment: '0.00000001',
        display_name: `${p.base}-${p.quote}`,
        min_market_funds: '1',
        margin_enabled: false,
        post_only: false,
        limit_only: false,
        cancel_only: false,
        status: 'online',
        status_message: '',
        trading_disabled: false,
        fx_stablecoin: false,
        max_slippage_percentage: '0.03',
        auction_mode: false,
      })),
    };
  }
  const match = /^\/products\/([^/]+)\/candles$/.exec(path);
  if (match) {
    const pair = PAIRS.coinbase.find((p) => `${p.base}-${p.quote}` === match[1]);
    if (!pair) return { status: 404, body: { message: 'NotFound' } };
    const granularity = num(query.granularity) ?? 60;
    if (!COINBASE_GRANULARITIES.has(granularity)) return { status: 400, body: { message: 'Unsupported granularity' } };
    const interval = granularity * 1000;
    const start = query.start ? Date.parse(query.start) : undefined;
    const end = query.end ? Date.parse(query.end) : undefined;
    // A range of more than 300 candles is refused, not cut.
    if (start !== undefined && end !== undefined && Math.floor((end - start) / interval) + 1 > 300) {
      return { status: 400, body: { message: 'granularity too small for the requested time range. Count of aggregations requested exceeds 300' } };
    }
    const times = candleTimes(interval, { start, end, limit: 300 }, span.now, span.listedAt);
    // Newest first: [time (s), low, high, open, close, volume].
    return {
      status: 200,
      body: times.reverse().map((t) => {
        const c = candleOf(pair, t, interval);
        return [t / 1000, c.low, c.high, c.open, c.close, c.volume];
      }),
    };
  }
  return null;
}

// --- KuCoin ---------------------------------------------------------------------------------

function kucoin(path: string, query: Record<string, string>, candleOf: CandleOf, span: FeedSpan): Answer | null {
  if (path === '/api/v3/currencies') {
    return {
      status: 200,
      body: {
        code: '200000',
        data: [...BASES, 'USDT'].map((code) => ({ currency: code, name: code, fullName: code, precision: 8, confirms: null, contractAddress: null, isMarginEnabled: false, isDebitEnabled: false, chains: [] })),
      },
    };
  }
  if (path === '/api/v2/symbols') {
    return {
      status: 200,
      body: {
        code: '200000',
        data: PAIRS.kucoin.map((p) => ({
          symbol: `${p.base}-${p.quote}`,
          name: `${p.base}-${p.quote}`,
          baseCurrency: p.base,
          quoteCurrency: p.quote,
          feeCurrency: p.quote,
          market: 'USDS',
          baseMinSize: '0.00001',
          quoteMinSize: '0.1',
          baseMaxSize: '10000000000',
          quoteMaxSize: '99999999',
          baseIncrement: '0.00000001',
          quoteIncrement: '0.000001',
          priceIncrement: '0.1',
          priceLimitRate: '0.1',
          minFunds: '0.1',
          isMarginEnabled: false,
          enableTrading: true,
          feeCategory: 1,
          makerFeeCoefficient: '1.00',
          takerFeeCoefficient: '1.00',
          st: false,
        })),
      },
    };
  }
  if (path === '/api/v1/market/candles') {
    const pair = PAIRS.kucoin.find((p) => `${p.base}-${p.quote}` === query.symbol);
    if (!pair) return { status: 200, body: { code: '400100', msg: 'This pair is not provided at present' } };
    const interval = KUCOIN_INTERVALS[query.type ?? ''];
    if (!interval) return { status: 200, body: { code: '400100', msg: 'Unsupported type' } };
    const startAt = num(query.startAt);
    const endAt = num(query.endAt);
    const times = candleTimes(interval, { start: startAt === undefined ? undefined : startAt * 1000, end: endAt === undefined ? undefined : endAt * 1000, limit: 1500 }, span.now, span.listedAt);
    // Newest first: [time (s), open, close, high, low, volume, turnover], all strings.
    return {
      status: 200,
      body: {
        code: '200000',
        data: times.reverse().map((t) => {
          const c = candleOf(pair, t, interval);
          return [String(t / 1000), String(c.open), String(c.close), String(c.high), String(c.low), String(c.volume), String(c.volume * c.close)];
        }),
      },
    };
  }
  return null;
}

// --- HTX ------------------------------------------------------------------------------------

function htx(path: string, query: Record<string, string>, candleOf: CandleOf, span: FeedSpan): Answer | null {
  if (path === '/v2/reference/currencies') {
    return {
      status: 200,
      body: {
        code: 200,
        data: [...BASES, 'USDT'].map((code) => ({ currency: code.toLowerCase(), assetType: 1, chains: [], instStatus: 'normal' })),
      },
    };
  }
  if (path === '/v1/common/symbols') {
    return {
      status: 200,
      body: {
        status: 'ok',
        data: PAIRS.htx.map((p) => ({
          'base-currency': p.base.toLowerCase(),
          'quote-currency': p.quote.toLowerCase(),
          'price-precision': 2,
          'amount-precision': 6,
          'symbol-partition': 'main',
          symbol: `${p.base}${p.quote}`.toLowerCase(),
          state: 'online',
          'value-precision': 8,
          'min-order-amt': 0.0001,
          'max-order-amt': 1000,
          'min-order-value': 5,
          'limit-order-min-order-amt': 0.0001,
          'limit-order-max-order-amt': 1000,
          'sell-market-min-order-amt': 0.0001,
          'sell-market-max-order-amt': 100,
          'buy-market-max-order-value': 1000000,
          'leverage-ratio': 0,
          'super-margin-leverage-ratio': 0,
          'funding-leverage-ratio': 0,
          'api-trading': 'enabled',
        })),
      },
    };
  }
  if (path === '/market/history/candles' || path === '/market/history/kline') {
    const pair = PAIRS.htx.find((p) => `${p.base}${p.quote}`.toLowerCase() === query.symbol);
    if (!pair) return { status: 200, body: { status: 'error', 'err-code': 'invalid-parameter', 'err-msg': 'invalid symbol' } };
    const interval = HTX_INTERVALS[query.period ?? ''];
    if (!interval) return { status: 200, body: { status: 'error', 'err-code': 'invalid-parameter', 'err-msg': 'invalid period' } };
    // The history endpoint serves `from`/`to` (seconds) ranges of up to 1000; the kline one the latest 2000.
    const ranged = path === '/market/history/candles';
    const from = ranged ? num(query.from) : undefined;
    const to = ranged ? num(query.to) : undefined;
    const size = Math.min(num(query.size) ?? 150, ranged ? 1000 : 2000);
    const times = candleTimes(interval, { start: from === undefined ? undefined : from * 1000, end: to === undefined ? undefined : to * 1000, limit: size }, span.now, span.listedAt);
    // Newest first; `id` is the open time in seconds.
    return {
      status: 200,
      body: {
        ch: `market.${query.symbol}.kline.${query.period}`,
        status: 'ok',
        ts: Date.now(),
        data: times.reverse().map((t) => {
          const c = candleOf(pair, t, interval);
          return { id: t / 1000, open: c.open, close: c.close, low: c.low, high: c.high, amount: c.volume, vol: c.volume * c.close, count: 42 };
        }),
      },
    };
  }
  return null;
}

// --- plumbing -------------------------------------------------------------------------------

function control(state: State, path: string, body: Record<string, unknown>, res: ServerResponse): void {
  const exchange = FAKE_EXCHANGES.find((id) => id === body.exchange);
  if (path === '/__control/fault') {
    const fault = FAKE_MARKET_FAULTS.find((f) => f === body.fault);
    if (!exchange || !fault) return sendJson(res, 400, { error: 'exchange or fault unknown' });
    setFaultState(state.faults.get(exchange)!, fault, { probability: num(String(body.probability ?? '')), seed: num(String(body.seed ?? '')) });
    return sendJson(res, 200, { ok: true });
  }
  if (path === '/__control/fail-next') {
    const fault = FAKE_FAILURES.find((f) => f === (body.fault ?? '429'));
    const count = Number(body.count);
    if (!exchange || !fault || !Number.isInteger(count) || count < 0) return sendJson(res, 400, { error: 'exchange, count or fault invalid' });
    state.faults.get(exchange)!.next = { fault, remaining: count };
    return sendJson(res, 200, { ok: true });
  }
  if (path === '/__control/error-text') {
    if (!exchange || !(typeof body.text === 'string' || body.text === null)) return sendJson(res, 400, { error: 'exchange or text invalid' });
    state.faults.get(exchange)!.errorText = body.text;
    return sendJson(res, 200, { ok: true });
  }
  if (path === '/__control/series') {
    if (typeof body.base !== 'string' || !(Array.isArray(body.candles) || body.candles === null)) return sendJson(res, 400, { error: 'base or candles invalid' });
    if (body.candles) state.series.set(body.base, body.candles as ScriptedCandle[]);
    else state.series.delete(body.base);
    return sendJson(res, 200, { ok: true });
  }
  if (path === '/__control/freeze') {
    const at = body.at === null ? null : Number(body.at);
    if (!exchange || (at !== null && !Number.isFinite(at))) return sendJson(res, 400, { error: 'exchange or at invalid' });
    if (at === null) state.frozenAt.delete(exchange);
    else state.frozenAt.set(exchange, at);
    return sendJson(res, 200, { ok: true });
  }
  if (path === '/__control/requests') return sendJson(res, 200, { requests: state.requests });
  if (path === '/__control/reset') {
    reset(state);
    return sendJson(res, 200, { ok: true });
  }
  sendJson(res, 404, { error: 'unknown control' });
}


await runStandalone(import.meta.url, () => startFakeExchanges({ port: Number(process.env.FAKE_EXCHANGES_PORT ?? 0) }));
