/**
 * A fake Whale Alert REST API v1 for tests: a real HTTP server on 127.0.0.1 answering
 * `GET /v1/transactions?api_key=&min_value=&start=&currency=&limit=&cursor=` as the real one
 * does: it filters the transactions set with setTransactions() by value, time and currency,
 * pages them (`cursor` continues after the previous page), refuses a `start` more than an hour
 * back (the free plan's limit) and answers `{ result: 'error', message }` with 401 for a wrong
 * key. Faults, set at runtime, for the next `times` requests or for good: '401', '429' (with a
 * Retry-After when asked), '500', 'hang' (never answers). `setErrorText(text)` puts `text` in
 * the `message` of every error answer.
 */
import { sendJson, startFakeHttpServer } from './http.ts';
import type { IncomingMessage, ServerResponse } from 'node:http';

export const FAKE_WHALE_ALERT_FAULTS = ['none', '401', '429', '500', 'hang'] as const;
export type FakeWhaleAlertFault = (typeof FAKE_WHALE_ALERT_FAULTS)[number];

type Party = { address: string; owner: string; owner_type: string };

/** One transaction as Whale Alert sends it. */
export type WhaleAlertWireTransaction = {
  blockchain: string;
  symbol: string;
  id: string;
  transaction_type: string;
  hash: string;
  from: Party;
  to: Party;
  /** Unix seconds. */
  timestamp: number;
  amount: number;
  amount_usd: number;
  transaction_count: number;
};

/** A request as received: the path and every query parameter, api_key included. */
export type FakeWhaleAlertRequest = { path: string; query: Record<string, string> };

export type FakeWhaleAlert = {
  /** For MarketConfig.baseUrls.whaleAlert (WHALE_ALERT_BASE_URL). */
  baseUrl: string;
  /** The only key the fake accepts. */
  apiKey: string;
  setTransactions(list: WhaleAlertWireTransaction[]): void;
  /** `times` requests get the fault, then the fake answers normally again (default: all). */
  setFault(fault: FakeWhaleAlertFault, options?: { times?: number; retryAfterSeconds?: number }): void;
  /** The `message` of error answers (null: the usual words). */
  setErrorText(text: string | null): void;
  requests(): FakeWhaleAlertRequest[];
  close(): Promise<void>;
};

export const FAKE_WHALE_ALERT_KEY = 'fake-whale-alert-key-0001';
const MAX_LIMIT = 100;
const MAX_LOOKBACK_SECONDS = 3600;

/** A wire transaction with sensible defaults, for building test data tersely. */
export function whaleAlertTransaction(overrides: Partial<WhaleAlertWireTransaction> = {}): WhaleAlertWireTransaction {
  return {
    blockchain: 'bitcoin',
    symbol: 'btc',
    id: '2489451742',
    transaction_type: 'transfer',
    hash: 'a1b2c3d4e5f60718293a4b5c6d7e8f90a1b2c3d4e5f60718293a4b5c6d7e8f90',
    from: { address: '3JZq4atUahhuA9rLhXLMhhTo133J9rF97j', owner: 'unknown', owner_type: 'unknown' },
    to: { address: '1NDyJtNTjmwk5xPNhjgAMu4HDHigtobu1s', owner: 'binance', owner_type: 'exchange' },
    timestamp: Math.floor(Date.now() / 1000) - 60,
    amount: 120,
    amount_usd: 7_800_000,
    transaction_count: 1,
    ...overrides,
  };
}

export async function startFakeWhaleAlert(options: { port?: number } = {}): Promise<FakeWhaleAlert> {
  const state = {
    transactions: [] as WhaleAlertWireTransaction[],
    fault: 'none' as FakeWhaleAlertFault,
    faultTimes: Infinity,
    retryAfterSeconds: undefined as number | undefined,
    requests: [] as FakeWhaleAlertRequest[],
    errorText: null as string | null,
  };
  const sendError = (res: ServerResponse, status: number, message: string, headers: Record<string, string> = {}) =>
    sendJson(res, status, { result: 'error', message: state.errorText ?? message }, headers);

  const { root, close } = await startFakeHttpServer('fake Whale Alert', options.port ?? 0, (req, res) => handle(req, res));

  function handle(req: IncomingMessage, res: ServerResponse): void {
    const url = new URL(req.url ?? '/', 'http://fake');
    const query = Object.fromEntries(url.searchParams);
    state.requests.push({ path: url.pathname, query });

    if (state.fault !== 'none' && state.faultTimes > 0) {
      const fault = state.fault;
      if (--state.faultTimes === 0) state.fault = 'none';
      if (fault === 'hang') return; // never answers; close() drops the socket
      if (fault === '401') return sendError(res, 401, 'invalid api_key');
      if (fault === '429') {
        const headers: Record<string, string> = state.retryAfterSeconds === undefined ? {} : { 'retry-after': String(state.retryAfterSeconds) };
        return sendError(res, 429, 'usage limit reached', headers);
      }
      return sendError(res, 500, 'internal server error');
    }

    if (req.method !== 'GET' || url.pathname !== '/v1/transactions') return sendError(res, 404, `fake: no route ${req.method} ${url.pathname}`);
    if (query.api_key !== FAKE_WHALE_ALERT_KEY) return sendError(res, 401, 'invalid api_key');
    const start = Number(query.start);
    const now = Math.floor(Date.now() / 1000);
    if (!Number.isInteger(start)) return sendError(res, 400, 'start is required');
    if (start < now - MAX_LOOKBACK_SECONDS) return sendError(res, 400, `start must be within the last ${MAX_LOOKBACK_SECONDS} seconds`);
    const minValue = Number(query.min_value ?? 500_000);
    const limit = Math.min(Number(query.limit ?? MAX_LIMIT), MAX_LIMIT);
    const offset = query.cursor ? Number(query.cursor.replace(/^fake-/, '')) : 0;

    const matching = state.transactions
      .filter((t) => t.timestamp >= start && t.amount_usd >= minValue && (!query.currency || t.symbol.toLowerCase() === query.currency))
      .sort((a, b) => a.timestamp - b.timestamp);
    const page = matching.slice(offset, offset + limit);
    const cursor = `fake-${offset + page.length}`;
    // As the real API: no `transactions` key at all when the page is empty.
    sendJson(res, 200, { result: 'success', cursor, count: page.length, ...(page.length > 0 ? { transactions: page } : {}) });
  }

  return {
    baseUrl: root,
    apiKey: FAKE_WHALE_ALERT_KEY,
    setTransactions: (list) => void (state.transactions = [...list]),
    setFault(fault, { times = Infinity, retryAfterSeconds } = {}) {
      state.fault = fault;
      state.faultTimes = times;
      state.retryAfterSeconds = retryAfterSeconds;
    },
    setErrorText: (text) => void (state.errorText = text),
    requests: () => [...state.requests],
    close,
  };
}

