import type { FastifyBaseLogger as Logger } from 'fastify';
import { TIMEFRAME_MS, type TCandle, type TCandleTimeframe } from '../../../contracts/market.ts';
import { MARKET_HOSTS, type MarketConfig } from '../../config.ts';
import type { CandleSource } from './candle-source.ts';
import { collectHistory } from './history-paging.ts';
import { aggregateCandles, DEFAULT_BACKOFF_MS, failureForStatus, ProviderHttpError, retryAfterMs, truncate, withRetries, type Failure } from './policy.ts';
import { RequestGate } from './request-gate.ts';

/**
 * Stock candles from Yahoo Finance's chart API through yahoo-finance2. Every request goes through
 * our fetch: it refuses hosts other than Yahoo's, sends Yahoo's hosts to the configured base URL
 * (a test fake), and turns a 429/5xx into an error we classify (the library would print the URL
 * with console.error and throw a plain HTTPError).
 *
 * Note: yahoo-finance2 v4 calls the chart endpoint without the cookie/crumb handshake (only
 * quote, quoteSummary, options and screener need it); if a module ever needs it, the library
 * runs it through the same fetch, against the same fake.
 */

const NAME = 'Yahoo Finance';
const DAY = 86_400_000;

type YahooInterval = '1m' | '5m' | '15m' | '30m' | '60m' | '1d' | '1wk';

/** Yahoo's interval for each of ours; 4h is not offered and is merged from 60m candles. */
const INTERVALS: Record<TCandleTimeframe, { interval: YahooInterval; factor: number }> = {
  '1m': { interval: '1m', factor: 1 },
  '5m': { interval: '5m', factor: 1 },
  '15m': { interval: '15m', factor: 1 },
  '30m': { interval: '30m', factor: 1 },
  '1h': { interval: '60m', factor: 1 },
  '4h': { interval: '60m', factor: 4 },
  '1d': { interval: '1d', factor: 1 },
  '1w': { interval: '1wk', factor: 1 },
};

/** How far back a live run's one request reaches per interval (1m: 7 days per request; 2m–30m: 60 days; 60m: 730 days). */
const MAX_LOOKBACK_DAYS: Partial<Record<YahooInterval, number>> = { '1m': 7, '5m': 59, '15m': 59, '30m': 59, '60m': 729 };

/**
 * Yahoo's limits on intraday history (its 422 answers say them: '1m data not available for
 * startTime=… The requested range must be within the last 30 days', 'Only 7 days worth of 1m
 * granularity data are allowed to be fetched per request', 60 days for 2m–30m, 730 for 60m):
 * how many days back it serves, and the most days one request may span. Daily and weekly
 * candles go back decades in one request. A range crossing the limit is refused whole, so
 * history asks from a day inside it (clock skew, Yahoo's own day counting).
 */
const INTRADAY_HISTORY: Partial<Record<YahooInterval, { backDays: number; perRequestDays: number }>> = {
  '1m': { backDays: 30, perRequestDays: 7 },
  '5m': { backDays: 60, perRequestDays: 60 },
  '15m': { backDays: 60, perRequestDays: 60 },
  '30m': { backDays: 60, perRequestDays: 60 },
  '60m': { backDays: 730, perRequestDays: 730 },
};

/** History asks for a range this much larger than its candles need on a plain trading calendar. */
const HISTORY_SLACK = 1.25;
/** Rest between two history requests at least (Yahoo publishes no limit; it answers 429 to bursts). */
const HISTORY_REST_MS = 1_000;
/** One gate per Yahoo host in this process: live runs before history pages (request-gate.ts). */
const gates = new Map<string, RequestGate>();

export type YahooSourceOptions = {
  logger?: Logger;
  now?: () => Date;
  /** The first retry's backoff (tests use a few ms). */
  backoffMs?: number;
  /** The least rest between two history requests (tests use a few ms). */
  historyRestMs?: number;
};

export function createYahooSource(config: MarketConfig, options: YahooSourceOptions = {}): CandleSource {
  const now = options.now ?? (() => new Date());
  const policy = { retries: config.retries, timeoutMs: config.timeoutMs, backoffMs: options.backoffMs ?? DEFAULT_BACKOFF_MS };
  // yahoo-finance2 is loaded at the first stock request, not when the server starts (decision
  // 0105); the client is made once.
  let chartOnce: Promise<(symbol: string, query: object, moduleOptions: object) => Promise<unknown>> | undefined;
  const loadChart = () =>
    (chartOnce ??= Promise.all([import('yahoo-finance2'), import('yahoo-finance2/lib/cookieJar')]).then(([{ default: YahooFinance }, { ExtendedCookieJar }]) => {
      const yahoo = new YahooFinance({
        fetch: yahooFetch(config.baseUrls.yahoo),
        // Our own jar: the library's default one is shared by every instance in the process.
        cookieJar: new ExtendedCookieJar(),
        suppressNotices: ['yahooSurvey', 'ripHistorical'],
        // On errors it would ask the npm registry whether a newer version exists.
        versionCheck: false,
        queue: { concurrency: 8 },
        validation: { logErrors: false, logOptionsErrors: false },
        logger: libraryLogger(options.logger),
      });
      // With validateResult false the library's typings have no overload; we check the shape
      // ourselves, so a new or missing field in Yahoo's `meta` (which we do not use) cannot fail a run.
      return yahoo.chart.bind(yahoo) as unknown as (symbol: string, query: object, moduleOptions: object) => Promise<unknown>;
    }));
  const gateKey = `${config.baseUrls.yahoo ?? ''}|${options.historyRestMs ?? ''}`;
  let gate = gates.get(gateKey);
  if (!gate) {
    gate = new RequestGate(options.historyRestMs ?? HISTORY_REST_MS);
    gates.set(gateKey, gate);
  }
  const shared = gate;

  /** One chart request over [period1, period2), retried by the policy. */
  const fetchRange = (symbol: string, timeframe: TCandleTimeframe, period1: number, period2: number, signal: AbortSignal) =>
    withRetries({
      source: 'yahoo',
      name: NAME,
      policy,
      signal,
      attempt: async (attemptSignal) =>
        (await loadChart())(
          symbol,
          { period1: new Date(period1), period2: new Date(period2), interval: INTERVALS[timeframe].interval, includePrePost: false, return: 'object' },
          { fetchOptions: { signal: attemptSignal }, validateResult: false },
        ),
      classify: (err) => classify(err, symbol),
    }).then((raw) => toCandles(raw, timeframe));

  return {
    id: 'yahoo',
    fetchCandles(request, signal) {
      // Counted as live before the first await, so a history page asked for later waits for it.
      return shared.runLive(async () => {
        const { interval, factor } = INTERVALS[request.timeframe];
        const end = now().getTime();
        const period1 = lookbackStart(request.timeframe, interval, request.limit, end, MAX_LOOKBACK_DAYS[interval]);
        let candles = await fetchRange(request.symbol, request.timeframe, period1, end, signal);
        if (factor > 1) candles = aggregateCandles(candles, TIMEFRAME_MS[request.timeframe]);
        return candles.slice(-request.limit);
      });
    },

    historyStart(timeframe, candles, nowMs) {
      const { interval } = INTERVALS[timeframe];
      const limit = INTRADAY_HISTORY[interval];
      // A quarter more than the trading calendar suggests: holidays, halted rows and short days
      // would otherwise leave a test short of candles Yahoo has.
      return lookbackStart(timeframe, interval, Math.ceil(candles * HISTORY_SLACK), nowMs, limit && limit.backDays - 1);
    },

    async fetchHistory(request, { signal, onPage }) {
      const { interval, factor } = INTERVALS[request.timeframe];
      const limit = INTRADAY_HISTORY[interval];
      const nowMs = now().getTime();
      // Within what Yahoo serves for the interval, a day inside its limit; minutes as Yahoo counts them.
      const earliest = limit ? Math.ceil((nowMs - (limit.backDays - 1) * DAY) / 60_000) * 60_000 : -Infinity;
      const start = Math.max(request.from, earliest);
      const end = Math.min(request.until + TIMEFRAME_MS[request.timeframe], nowMs);
      const span = limit ? limit.perRequestDays * DAY : Infinity;
      const paging = await collectHistory({
        source: 'yahoo',
        name: NAME,
        gate: shared,
        signal,
        onPage: onPage && ((received) => onPage(Math.floor(received / factor))),
        async pages(page, keep) {
          for (let period1 = start; period1 < end; period1 = Math.min(end, period1 + span)) {
            const period2 = Math.min(end, period1 + span);
            keep(await page(() => fetchRange(request.symbol, request.timeframe, period1, period2, signal)));
          }
        },
      });
      if (factor === 1) return paging;
      return { ...paging, candles: aggregateCandles(paging.candles, TIMEFRAME_MS[request.timeframe]) };
    },
  };
}

/**
 * The start of the range that holds `limit` candles: markets trade 6.5 h a day, 5 days a week,
 * so intraday ranges span several calendar days, plus slack for holidays.
 */
function lookbackStart(timeframe: TCandleTimeframe, interval: YahooInterval, limit: number, end: number, maxDays: number | undefined): number {
  let days: number;
  if (timeframe === '1w') days = limit * 7 + 14;
  else if (timeframe === '1d') days = Math.ceil((limit * 7) / 5) + 7;
  else {
    const perDay = timeframe === '4h' ? 2 : Math.ceil(390 / (TIMEFRAME_MS[timeframe] / 60_000));
    days = Math.ceil(((Math.ceil(limit / perDay) + 1) * 7) / 5) + 4;
  }
  days = Math.min(days, maxDays ?? days);
  // 4h buckets start on the 4h grid, so the first one is complete.
  const grid = timeframe === '4h' ? TIMEFRAME_MS['4h'] : 60_000;
  return Math.floor((end - days * DAY) / grid) * grid;
}

/** Yahoo's columns as candles, oldest first: halted minutes (nulls) dropped, daily and weekly times at 00:00 UTC. */
function toCandles(raw: unknown, timeframe: TCandleTimeframe): TCandle[] {
  const result = raw as { timestamp?: unknown; indicators?: { quote?: Array<Record<string, unknown>> } } | null;
  const timestamps = Array.isArray(result?.timestamp) ? (result.timestamp as unknown[]) : [];
  const quote = result?.indicators?.quote?.[0] ?? {};
  const column = (name: string) => (Array.isArray(quote[name]) ? (quote[name] as unknown[]) : []);
  const [open, high, low, close, volume] = ['open', 'high', 'low', 'close', 'volume'].map(column) as [unknown[], unknown[], unknown[], unknown[], unknown[]];
  const daily = timeframe === '1d' || timeframe === '1w';
  const byTime = new Map<number, TCandle>();
  timestamps.forEach((ts, i) => {
    const values = [ts, open[i], high[i], low[i], close[i]];
    if (!values.every((v) => typeof v === 'number' && Number.isFinite(v))) return;
    const seconds = ts as number;
    const time = daily ? Math.floor((seconds * 1000) / DAY) * DAY : seconds * 1000;
    const v = volume[i];
    // A later row for the same time (Yahoo's live last row) replaces the earlier one.
    byTime.set(time, { time, open: open[i] as number, high: high[i] as number, low: low[i] as number, close: close[i] as number, volume: typeof v === 'number' && Number.isFinite(v) ? v : 0 });
  });
  return [...byTime.values()].sort((a, b) => a.time - b.time);
}

const ALLOWED_HOSTS: readonly string[] = MARKET_HOSTS.yahoo;

/**
 * The fetch yahoo-finance2 uses: only Yahoo's fixed hosts over https, rewritten to `baseUrl`
 * (keeping path and query) when one is configured. Redirects are never followed on our behalf
 * (the crumb flow asks for 'manual' and reads them itself); an error status throws.
 */
export function yahooFetch(baseUrl: string | undefined): typeof fetch {
  return async (input, init) => {
    const url = new URL(typeof input === 'string' ? input : input instanceof URL ? input.href : input.url);
    if (url.protocol !== 'https:' || !ALLOWED_HOSTS.includes(url.hostname)) throw new HostNotAllowed(url.origin);
    const target = baseUrl ? `${baseUrl}${url.pathname}${url.search}` : url.href;
    const manual = init?.redirect === 'manual';
    const response = await fetch(target, { ...init, redirect: 'manual' });
    if (response.status >= 400 || (response.status >= 300 && !manual)) {
      throw new ProviderHttpError(response.status, await response.text().catch(() => ''), retryAfterMs(response.headers));
    }
    return response;
  };
}

class HostNotAllowed extends Error {
  constructor(origin: string) {
    super(`refused to call ${origin}: not one of Yahoo's hosts`);
    this.name = 'HostNotAllowed';
  }
}

function classify(err: unknown, symbol: string): Failure {
  if (err instanceof ProviderHttpError) {
    const failure = failureForStatus(err.status, err.body, err.retryAfterMs);
    if (failure.failure !== 'provider-error') return failure;
    // Yahoo's own words ({ chart: { error: { description } } }) stay in the cause: the log's.
    if (err.status === 404) return { ...failure, failure: 'unknown-symbol', detail: `${NAME} does not know the symbol ${symbol}` };
    return { ...failure, detail: `${NAME} refused the request (HTTP ${err.status})` };
  }
  const error = err instanceof Error ? err : new Error(String(err));
  const cause = { error: error.name, message: truncate(error.message) };
  // Connection refused or reset: fetch's TypeError('fetch failed').
  if (error instanceof TypeError && error.message === 'fetch failed') return { failure: 'unreachable', cause };
  if (error instanceof HostNotAllowed) return { failure: 'unreachable', detail: `${NAME} is not reachable from here (host not allowed)`, cause };
  // The library throws Yahoo's own { error: { description } } answers as plain errors.
  return { failure: 'provider-error', detail: `${NAME} refused the request (${error.name})`, cause };
}

/** yahoo-finance2 logs through this: our logger at debug (warn for its errors), or nowhere. */
function libraryLogger(logger: Logger | undefined) {
  const debug = (...args: unknown[]) => logger?.debug({ yahooFinance2: args }, 'yahoo-finance2');
  const warn = (...args: unknown[]) => logger?.warn({ yahooFinance2: args }, 'yahoo-finance2');
  return { info: debug, debug, dir: debug, warn: debug, error: warn };
}
