import { setTimeout as sleep } from 'node:timers/promises';
import { z } from 'zod';
import type { TMarketFailure } from '../../../contracts/market.ts';
import type { MarketConfig } from '../../config.ts';
import { OnChainError, type OnChainSource, type WhaleTransaction } from './onchain-source.ts';

const DEFAULT_BASE_URL = 'https://api.whale-alert.io';
/**
 * The free plan rejects a `start` more than an hour back. The margin keeps a request that takes
 * a moment to arrive, or a clock a few seconds off theirs, from being refused for that.
 */
const MAX_LOOKBACK_SECONDS = 3600 - 30;
/** Whale Alert's largest page. */
const PAGE_LIMIT = 100;
/** Every page costs one request of the free plan's 10 a minute; a minute-by-minute watcher
 * seldom sees even one full page for one token. */
const MAX_PAGES = 3;
const BACKOFF_BASE_MS = 250;
/** A Retry-After longer than this is not waited out: the next tick will ask again anyway. */
const RETRY_AFTER_CAP_MS = 5_000;

const ZParty = z
  .object({ address: z.string().optional(), owner: z.string().optional() })
  .optional()
  .catch(undefined);

const ZTransaction = z.object({
  blockchain: z.string(),
  symbol: z.string(),
  hash: z.string(),
  from: ZParty,
  to: ZParty,
  timestamp: z.number(),
  amount: z.number(),
  amount_usd: z.number(),
});

type Transaction = z.infer<typeof ZTransaction>;

const ZPage = z.object({
  result: z.literal('success'),
  cursor: z.string().optional(),
  // Whale Alert leaves the array out, rather than sending it empty, when nothing matched.
  transactions: z.array(z.unknown()).optional(),
});

type Page = { cursor: string | undefined; received: number; transactions: Transaction[] };

/** The source for `market`, or null without an API key (the caller reports 'not configured'). */
export function createWhaleAlertSource(market: MarketConfig): OnChainSource | null {
  const apiKey = market.whaleAlert.apiKey;
  if (!apiKey) return null;
  const endpoint = `${market.baseUrls.whaleAlert ?? DEFAULT_BASE_URL}/v1/transactions`;
  const { minUsd } = market.whaleAlert;
  const { timeoutMs, retries } = market;

  return {
    async whaleTransactions(token, since, signal) {
      const nowSeconds = Math.floor(Date.now() / 1000);
      const requested = Math.floor(since.getTime() / 1000);
      const start = Number.isFinite(requested) ? Math.max(requested, nowSeconds - MAX_LOOKBACK_SECONDS) : nowSeconds - MAX_LOOKBACK_SECONDS;
      const currency = token.trim().toLowerCase();

      const found: WhaleTransaction[] = [];
      let cursor: string | undefined;
      for (let page = 0; page < MAX_PAGES; page++) {
        const url = new URL(endpoint);
        url.searchParams.set('api_key', apiKey);
        url.searchParams.set('min_value', String(minUsd));
        url.searchParams.set('start', String(start));
        url.searchParams.set('currency', currency);
        url.searchParams.set('limit', String(PAGE_LIMIT));
        if (cursor) url.searchParams.set('cursor', cursor);

        const body = await fetchPage(url, { apiKey, timeoutMs, retries, signal });
        for (const t of body.transactions) {
          // The API filters too; this guards against a plan or version that ignores a filter.
          if (t.symbol.toLowerCase() !== currency || t.amount_usd < minUsd || t.timestamp < start) continue;
          found.push({
            hash: t.hash,
            blockchain: t.blockchain,
            symbol: t.symbol.toUpperCase(),
            amount: t.amount,
            amountUsd: t.amount_usd,
            from: partyName(t.from),
            to: partyName(t.to),
            time: new Date(t.timestamp * 1000).toISOString(),
          });
        }
        if (body.received < PAGE_LIMIT || !body.cursor || body.cursor === cursor) break;
        cursor = body.cursor;
      }
      return found;
    },
  };
}

/** The owner when Whale Alert knows it ('binance'), else the address. */
function partyName(party: { address?: string | undefined; owner?: string | undefined } | undefined): string {
  return party?.owner || party?.address || 'unknown';
}

type PageRequest = { apiKey: string; timeoutMs: number; retries: number; signal: AbortSignal };

/** One page, retried after a 429, a 5xx, a timeout or a dropped connection, with backoff. */
async function fetchPage(url: URL, { apiKey, timeoutMs, retries, signal }: PageRequest): Promise<Page> {
  // The key travels in the query string: the log gets the URL without it.
  const where = `${url.origin}${url.pathname}`;
  const attempts = retries + 1;
  let last: { kind: TMarketFailure; logCause: Record<string, unknown>; retryAfterMs: number | null } | null = null;

  for (let attempt = 1; attempt <= attempts; attempt++) {
    if (last) {
      const backoff = last.retryAfterMs ?? BACKOFF_BASE_MS * 2 ** (attempt - 2);
      try {
        await sleep(backoff, undefined, { signal });
      } catch {
        throw aborted(where, signal);
      }
    }
    if (signal.aborted) throw aborted(where, signal);
    const timeout = AbortSignal.timeout(timeoutMs);
    let status: number;
    let text: string;
    let retryAfterMs: number | null;
    try {
      const response = await fetch(url, { headers: { accept: 'application/json' }, signal: AbortSignal.any([signal, timeout]) });
      status = response.status;
      retryAfterMs = parseRetryAfter(response.headers.get('retry-after'));
      text = await response.text();
    } catch (err) {
      if (signal.aborted) throw aborted(where, signal);
      const kind = timeout.aborted ? 'timeout' : 'unreachable';
      last = { kind, logCause: { url: where, attempts: attempt, name: (err as Error | null)?.name, message: mask(String((err as Error | null)?.message ?? err), apiKey) }, retryAfterMs: null };
      continue;
    }

    let json: unknown = null;
    try {
      json = JSON.parse(text);
    } catch {
      // Not JSON (a proxy's HTML error page, a cut body): judged by the status alone.
    }
    const logCause = { url: where, status, attempts: attempt, ...providerMessage(json, text, status, apiKey) };
    if (status === 401 || status === 403) {
      throw new OnChainError('key-rejected', 'The Whale Alert API key was rejected; check WHALE_ALERT_API_KEY', logCause);
    }
    if (status === 429 || status >= 500) {
      last = { kind: status === 429 ? 'rate-limited' : 'unavailable', logCause, retryAfterMs };
      continue;
    }
    if (status !== 200 || (json as { result?: unknown } | null)?.result === 'error') {
      throw new OnChainError('provider-error', `Whale Alert refused the request (HTTP ${status})`, logCause);
    }

    const page = ZPage.safeParse(json);
    if (!page.success) {
      throw new OnChainError('provider-error', 'Whale Alert sent an answer we could not read', {
        ...logCause,
        issues: page.error.issues.slice(0, 3).map((i) => `${i.path.join('.')}: ${i.message}`),
      });
    }
    const received = page.data.transactions ?? [];
    // One odd entry (a chain with no hash, say) should not hide the rest: it is skipped.
    const transactions = received.flatMap((t) => {
      const parsed = ZTransaction.safeParse(t);
      return parsed.success ? [parsed.data] : [];
    });
    return { cursor: page.data.cursor, received: received.length, transactions };
  }

  const { kind, logCause } = last!;
  const tried = attempts === 1 ? '' : ` (${attempts} attempts)`;
  const detail =
    kind === 'rate-limited'
      ? `Whale Alert is rate limiting requests${tried}; try again shortly`
      : kind === 'timeout'
        ? `Whale Alert did not answer within ${timeoutText(timeoutMs)}${tried}`
        : kind === 'unreachable'
          ? `Whale Alert could not be reached${tried}`
          : `Whale Alert is unavailable right now${tried}`;
  throw new OnChainError(kind, detail, logCause);
}

/** The caller's signal ended the lookup: its deadline (a timeout) or a shutdown. */
function aborted(where: string, signal: AbortSignal): OnChainError {
  const timedOut = (signal.reason as { name?: unknown } | undefined)?.name === 'TimeoutError';
  return new OnChainError(timedOut ? 'timeout' : 'cancelled', 'The request was cancelled', { url: where });
}

function timeoutText(ms: number): string {
  return ms % 1000 === 0 ? `${ms / 1000} seconds` : `${ms} ms`;
}

/** Retry-After in seconds or as an HTTP date, in ms capped; null when absent or unreadable. */
function parseRetryAfter(value: string | null): number | null {
  if (value === null || value.trim() === '') return null;
  const seconds = Number(value);
  const ms = Number.isFinite(seconds) ? seconds * 1000 : Date.parse(value) - Date.now();
  if (!Number.isFinite(ms)) return null;
  return Math.min(Math.max(ms, 0), RETRY_AFTER_CAP_MS);
}

/** For the log: the `message` of an error body (or the start of a non-JSON one), key masked. */
function providerMessage(json: unknown, text: string, status: number, apiKey: string): { providerMessage?: string } {
  const message = (json as { message?: unknown } | null)?.message;
  if (typeof message === 'string') return { providerMessage: mask(message, apiKey).slice(0, 300) };
  if (json === null && status !== 200 && text.trim() !== '') return { providerMessage: mask(text.trim(), apiKey).slice(0, 300) };
  return {};
}

function mask(text: string, apiKey: string): string {
  return text.split(apiKey).join('***');
}
