/**
 * Fake Yahoo Finance for tests: a real HTTP server on 127.0.0.1 standing in for every Yahoo host
 * (query1/query2.finance.yahoo.com, fc.yahoo.com, finance.yahoo.com, ...), which yahoo-finance2
 * reaches through our rewriting fetch:
 *
 *   GET /quote/:symbol, GET /             the cookie step: Set-Cookie A3=... (Domain=.yahoo.com)
 *   GET /v1/test/getcrumb                 the crumb, only with that cookie (401 otherwise); counted
 *   GET /v8/finance/chart/:symbol         candles in Yahoo's JSON shape (chart.result[0].meta,
 *                                         timestamp[], indicators.quote[0].{open,high,low,close,volume}),
 *                                         every 7th row null (a halted minute); unknown symbols get
 *                                         404 { chart: { result: null, error: { code: 'Not Found', ... } } };
 *                                         intraday ranges beyond Yahoo's limits (1m: last 30 days,
 *                                         7 days a request; 2m-90m: 60 days; 60m: 730 days) get its
 *                                         422 { chart: { error: { code: 'Unprocessable Entity', description } } }
 *
 * Candles follow `fakeCandle` (tests/fakes/exchanges.ts) during US market hours (Mon–Fri
 * 13:30–20:00 UTC) for intraday intervals; daily and weekly rows are stamped 13:30 UTC, as Yahoo
 * stamps them with the market's open.
 *
 * Faults as the exchanges fake: setFault('429' | '500' | 'bad-request' | 'unknown-symbol' | 'hang' |
 * 'flaky' | 'none'), failNext(n). 429 and 500 come as Yahoo sends them, in plain text; a bad
 * request (400) and an unknown symbol (404) in its JSON error shape. `setErrorText(text)` puts
 * `text` where Yahoo writes its words (the plain-text body, `error.description`).
 *
 * Standalone (for Playwright): `node tests/fakes/yahoo.ts` prints YAHOO_BASE_URL=...; FAKE_YAHOO_PORT
 * picks the port. Control over HTTP: POST /__control/fault {fault, probability?, seed?},
 * POST /__control/fail-next {count, fault?}, POST /__control/error-text {text}, GET /__control/requests,
 * POST /__control/reset.
 */
import { readJson, runStandalone, sendJson, startFakeHttpServer } from './http.ts';
import type { IncomingMessage, ServerResponse } from 'node:http';
import {
  FAKE_FAILURES,
  FAKE_MARKET_FAULTS,
  fakeCandle,
  newFaultState,
  pickFailure,
  setFaultState,
  type FakeFailure,
  type FakeMarketFault,
  type FaultState,
} from './exchanges.ts';

/** The listed stocks and their price levels. */
export const FAKE_STOCKS: Record<string, number> = { AAPL: 190, MSFT: 420, TSLA: 200, NVDA: 120, SPY: 520 };
export const FAKE_CRUMB = 'fakeCrumb.0001';
const COOKIE_NAME = 'A3';
const COOKIE_VALUE = 'd=AQABBfake0001&S=AQAAAfake';
/** Every NULL_EVERY-th row of a chart is null, as Yahoo sends halted minutes. */
export const NULL_EVERY = 7;

const MINUTE = 60_000;
const DAY = 86_400_000;
const INTERVALS: Record<string, number> = {
  '1m': MINUTE,
  '2m': 2 * MINUTE,
  '5m': 5 * MINUTE,
  '15m': 15 * MINUTE,
  '30m': 30 * MINUTE,
  '60m': 60 * MINUTE,
  '90m': 90 * MINUTE,
  '1h': 60 * MINUTE,
  '1d': DAY,
  '1wk': 7 * DAY,
};
const OPEN_UTC = 13.5 * 60 * MINUTE;
const CLOSE_UTC = 20 * 60 * MINUTE;

export type FakeYahooRequest = { method: string; path: string; query: Record<string, string>; cookie: boolean; outcome: number | 'hang'; at: number };

export type FakeYahoo = {
  baseUrl: string;
  /** { YAHOO_BASE_URL } */
  env: Record<string, string>;
  setFault(fault: FakeMarketFault, options?: { probability?: number; seed?: number }): void;
  failNext(count: number, fault?: FakeFailure): void;
  /** Yahoo's error messages say `text` (null: its usual words) until reset. */
  setErrorText(text: string | null): void;
  requests(): FakeYahooRequest[];
  /** Times a crumb was handed out. */
  crumbFetches(): number;
  reset(): void;
  close(): Promise<void>;
};

/** `clock`: Yahoo's now (its limits count back from it): the test's clock when it has its own. */
type State = { fault: FaultState; requests: FakeYahooRequest[]; crumbs: number; clock: () => number };

export function fakeYahooEnv(root: string): Record<string, string> {
  return { YAHOO_BASE_URL: root };
}

export async function startFakeYahoo(options: { port?: number; now?: () => number } = {}): Promise<FakeYahoo> {
  const state: State = { fault: newFaultState(), requests: [], crumbs: 0, clock: options.now ?? Date.now };
  const { root, close } = await startFakeHttpServer('fake Yahoo', options.port ?? 0, (req, res) => handle(state, req, res));
  return {
    baseUrl: root,
    env: fakeYahooEnv(root),
    setFault: (fault, faultOptions) => setFaultState(state.fault, fault, faultOptions),
    failNext(count, fault = '429') {
      state.fault.next = { fault, remaining: count };
    },
    setErrorText(text) {
      state.fault.errorText = text;
    },
    requests: () => [...state.requests],
    crumbFetches: () => state.crumbs,
    reset: () => reset(state),
    close,
  };
}

function reset(state: State): void {
  state.fault = newFaultState();
  state.requests.length = 0;
  state.crumbs = 0;
}

async function handle(state: State, req: IncomingMessage, res: ServerResponse): Promise<void> {
  const url = new URL(req.url ?? '/', 'http://fake');
  if (url.pathname.startsWith('/__control/')) return control(state, url.pathname, await readJson(req), res);

  const cookie = (req.headers.cookie ?? '').split(/;\s*/).includes(`${COOKIE_NAME}=${COOKIE_VALUE}`);
  const record: FakeYahooRequest = { method: req.method ?? 'GET', path: url.pathname, query: Object.fromEntries(url.searchParams), cookie, outcome: 200, at: Date.now() };
  state.requests.push(record);

  const failure = pickFailure(state.fault);
  if (failure === 'hang') {
    record.outcome = 'hang';
    return;
  }
  const say = (usual: string) => state.fault.errorText ?? usual;
  if (failure === '429' || failure === '500') {
    record.outcome = Number(failure);
    // Yahoo answers these in plain text, not JSON.
    return sendText(res, Number(failure), `${say(failure === '429' ? 'Too Many Requests' : 'Internal Server Error')}\r\n`);
  }
  if (failure) {
    const answer = failure === 'unknown-symbol' ? chartError(404, 'Not Found', say(NO_DATA)) : chartError(400, 'Bad Request', say(BAD_INPUT));
    record.outcome = answer.status;
    return sendJson(res, answer.status, answer.body);
  }

  if (url.pathname === '/' || url.pathname.startsWith('/quote/')) {
    // Real Yahoo sets its cookies on .yahoo.com, so the jar sends them to query1/query2 too.
    res.setHeader('set-cookie', `${COOKIE_NAME}=${COOKIE_VALUE}; Max-Age=31557600; Domain=.yahoo.com; Path=/; SameSite=None; Secure; HttpOnly`);
    return sendText(res, 200, '<!doctype html><title>Yahoo Finance (fake)</title>', 'text/html');
  }
  if (url.pathname === '/v1/test/getcrumb') {
    if (!cookie) {
      record.outcome = 401;
      return sendJson(res, 401, { finance: { result: null, error: { code: 'Unauthorized', description: 'Invalid Cookie' } } });
    }
    state.crumbs++;
    return sendText(res, 200, FAKE_CRUMB);
  }
  const chart = /^\/v8\/finance\/chart\/([^/]+)$/.exec(url.pathname);
  if (chart) {
    const answer = chartAnswer(decodeURIComponent(chart[1]!), url.searchParams, say, state.clock());
    record.outcome = answer.status;
    return sendJson(res, answer.status, answer.body);
  }
  record.outcome = 404;
  sendJson(res, 404, { finance: { result: null, error: { code: 'Not Found', description: `fake: no route ${url.pathname}` } } });
}

const NO_DATA = 'No data found, symbol may be delisted';
const BAD_INPUT = 'Invalid input - interval or period';

/** Yahoo's JSON error: { chart: { result: null, error: { code, description } } }. */
function chartError(status: number, code: string, description: string): { status: number; body: unknown } {
  return { status, body: { chart: { result: null, error: { code, description } } } };
}

function chartAnswer(symbol: string, params: URLSearchParams, say: (usual: string) => string, now: number): { status: number; body: unknown } {
  const price = FAKE_STOCKS[symbol];
  if (price === undefined) return chartError(404, 'Not Found', say(NO_DATA));
  const interval = params.get('interval') ?? '1d';
  const step = INTERVALS[interval];
  const period1 = Number(params.get('period1')) * 1000;
  const period2 = Math.min(Number(params.get('period2') || now / 1000) * 1000, now);
  if (!step || !Number.isFinite(period1) || !(period1 < period2)) return chartError(400, 'Bad Request', say(BAD_INPUT));
  const refused = intradayRefusal(interval, period1, Number(params.get('period2') || now / 1000) * 1000, now);
  if (refused) return chartError(422, 'Unprocessable Entity', say(refused));

  const times = rowTimes(step, period1, period2);
  const candles = times.map((t) => fakeCandle(price, t, step));
  const nullable = (pick: (i: number) => number) => candles.map((_, i) => (i % NULL_EVERY === NULL_EVERY - 1 ? null : pick(i)));
  const last = candles.at(-1);
  const tradingPeriod = (start: number, end: number) => ({ timezone: 'EDT', start: start / 1000, end: end / 1000, gmtoffset: -14_400 });
  const today = Math.floor(now / DAY) * DAY;
  return {
    status: 200,
    body: {
      chart: {
        result: [
          {
            meta: {
              currency: 'USD',
              symbol,
              exchangeName: 'NMS',
              fullExchangeName: 'NasdaqGS',
              instrumentType: 'EQUITY',
              firstTradeDate: 345_479_400,
              regularMarketTime: Math.floor((last?.time ?? period2) / 1000),
              hasPrePostMarketData: true,
              gmtoffset: -14_400,
              timezone: 'EDT',
              exchangeTimezoneName: 'America/New_York',
              regularMarketPrice: last?.close ?? price,
              chartPreviousClose: price,
              priceHint: 2,
              currentTradingPeriod: {
                pre: tradingPeriod(today + 8 * 3_600_000, today + OPEN_UTC),
                regular: tradingPeriod(today + OPEN_UTC, today + CLOSE_UTC),
                post: tradingPeriod(today + CLOSE_UTC, today + 24 * 3_600_000),
              },
              dataGranularity: interval,
              range: '',
              validRanges: ['1d', '5d', '1mo', '3mo', '6mo', '1y', '2y', '5y', '10y', 'ytd', 'max'],
            },
            timestamp: times.map((t) => t / 1000),
            indicators: {
              quote: [
                {
                  open: nullable((i) => candles[i]!.open),
                  high: nullable((i) => candles[i]!.high),
                  low: nullable((i) => candles[i]!.low),
                  close: nullable((i) => candles[i]!.close),
                  volume: nullable((i) => Math.round(candles[i]!.volume * 100_000)),
                },
              ],
              adjclose: interval === '1d' || interval === '1wk' ? [{ adjclose: nullable((i) => candles[i]!.close) }] : undefined,
            },
          },
        ],
        error: null,
      },
    },
  };
}

/**
 * Yahoo's limits on intraday history, as its 422 answers state them: 1m within the last 30 days
 * and 7 days per request, 2m to 90m within 60 days, 60m (1h) within 730 days. A range crossing
 * the limit is refused whole (no partial answer). Null: within the limits.
 */
function intradayRefusal(interval: string, period1: number, period2: number, now: number): string | null {
  const backDays = interval === '1m' ? 30 : ['2m', '5m', '15m', '30m', '90m'].includes(interval) ? 60 : ['60m', '1h'].includes(interval) ? 730 : null;
  if (backDays === null) return null;
  const range = `${interval} data not available for startTime=${Math.floor(period1 / 1000)} and endTime=${Math.floor(period2 / 1000)}.`;
  if (period1 < now - backDays * DAY) return `${range} The requested range must be within the last ${backDays} days.`;
  if (interval === '1m' && period2 - period1 > 7 * DAY) return `${range} Only 7 days worth of 1m granularity data are allowed to be fetched per request.`;
  return null;
}

/** Row times in [from, to): market hours only for intraday, 13:30 UTC on weekdays (Mondays for weekly). */
function rowTimes(step: number, from: number, to: number): number[] {
  const times: number[] = [];
  const weekday = (t: number) => new Date(t).getUTCDay() % 6 !== 0;
  if (step >= DAY) {
    const stride = step === DAY ? DAY : 7 * DAY;
    // Daily rows on weekdays; weekly rows on Mondays (the epoch was a Thursday: +4 days).
    let day = step === DAY ? Math.floor(from / DAY) * DAY : Math.floor((from - 4 * DAY) / stride) * stride + 4 * DAY;
    for (; day < to; day += stride) {
      const t = day + OPEN_UTC;
      if (t >= from && t < to && weekday(day)) times.push(t);
    }
    return times;
  }
  for (let day = Math.floor(from / DAY) * DAY; day < to; day += DAY) {
    if (!weekday(day)) continue;
    for (let t = day + OPEN_UTC; t < day + CLOSE_UTC; t += step) {
      if (t >= from && t < to) times.push(t);
    }
  }
  return times;
}

function control(state: State, path: string, body: Record<string, unknown>, res: ServerResponse): void {
  if (path === '/__control/fault') {
    const fault = FAKE_MARKET_FAULTS.find((f) => f === body.fault);
    if (!fault) return sendJson(res, 400, { error: 'fault unknown' });
    const num = (v: unknown) => (typeof v === 'number' ? v : undefined);
    setFaultState(state.fault, fault, { probability: num(body.probability), seed: num(body.seed) });
    return sendJson(res, 200, { ok: true });
  }
  if (path === '/__control/fail-next') {
    const fault = FAKE_FAILURES.find((f) => f === (body.fault ?? '429'));
    const count = Number(body.count);
    if (!fault || !Number.isInteger(count) || count < 0) return sendJson(res, 400, { error: 'count or fault invalid' });
    state.fault.next = { fault, remaining: count };
    return sendJson(res, 200, { ok: true });
  }
  if (path === '/__control/error-text') {
    if (!(typeof body.text === 'string' || body.text === null)) return sendJson(res, 400, { error: 'text invalid' });
    state.fault.errorText = body.text;
    return sendJson(res, 200, { ok: true });
  }
  if (path === '/__control/requests') return sendJson(res, 200, { requests: state.requests, crumbFetches: state.crumbs });
  if (path === '/__control/reset') {
    reset(state);
    return sendJson(res, 200, { ok: true });
  }
  sendJson(res, 404, { error: 'unknown control' });
}

function sendText(res: ServerResponse, status: number, text: string, type = 'text/plain;charset=utf-8'): void {
  res.writeHead(status, { 'content-type': type, 'content-length': Buffer.byteLength(text) });
  res.end(text);
}

await runStandalone(import.meta.url, () => startFakeYahoo({ port: Number(process.env.FAKE_YAHOO_PORT ?? 0) }));
