import { TIMEFRAME_MS, type TCandle, type TCandleTimeframe, type TMarketFailure, type TMarketSource } from '../../../contracts/market.ts';
import { MarketDataError } from './candle-source.ts';

/**
 * What every market data provider shares: retries with exponential backoff for the failures
 * that pass (429, 5xx, timeouts, connection failures), an immediate failure for the ones that
 * do not (unknown symbol, refused request), one kind of failure at the end (the user's
 * sentence; the provider's words go to the log), and aborts honoured even by clients that take
 * no signal.
 */

export type RetryPolicy = {
  /** Retries after the first attempt. */
  retries: number;
  /** One attempt's limit; an attempt still waiting then counts as a timeout. */
  timeoutMs: number;
  /** The first backoff; each retry doubles it (capped), with jitter. */
  backoffMs: number;
};

/** The first backoff in production: 0.5 s, then about 1 s, 2 s, 4 s (capped at 8 s). */
export const DEFAULT_BACKOFF_MS = 500;
const MAX_BACKOFF_MS = 8_000;
/**
 * A provider's Retry-After is waited out up to this long; a longer one ends the retries at once
 * (asking again earlier would only earn another 429, or a ban: Binance's 418).
 */
export const MAX_RETRY_AFTER_MS = 10_000;

/** The failures that may pass: waited out and tried again. The others fail at once. */
const RETRIED: ReadonlySet<TMarketFailure> = new Set(['rate-limited', 'unavailable', 'unreachable', 'timeout']);

export type Failure = {
  failure: TMarketFailure;
  status?: number;
  /** What happened in our words, for the log ('Binance does not list DOGE/USDT'). */
  detail?: string;
  /** Provider text and error name for the log (never keys). */
  cause: Record<string, unknown>;
  /** How long the provider asked us to wait before the next request (its Retry-After). */
  retryAfterMs?: number;
};

/** A provider answered with an HTTP status we decide on ourselves (429, 418, 5xx, ...). */
export class ProviderHttpError extends Error {
  readonly status: number;
  readonly body: string;
  /** The answer's Retry-After in ms, when it had one. */
  readonly retryAfterMs: number | undefined;

  constructor(status: number, body: string, retryAfterMs?: number) {
    super(`HTTP ${status}: ${truncate(body)}`);
    this.name = 'ProviderHttpError';
    this.status = status;
    this.body = body;
    this.retryAfterMs = retryAfterMs;
  }
}

/**
 * A Retry-After header in ms: delay-seconds ('30') or an HTTP date. Header names are matched
 * without regard to case (ccxt capitalises them, fetch lower-cases them).
 */
export function retryAfterMs(headers: Record<string, unknown> | Headers | undefined, now = Date.now()): number | undefined {
  if (!headers) return undefined;
  const value =
    headers instanceof Headers ? headers.get('retry-after') : Object.entries(headers).find(([name]) => name.toLowerCase() === 'retry-after')?.[1];
  if (typeof value !== 'string' || value.trim() === '') return undefined;
  if (/^\d+$/.test(value.trim())) return Number(value.trim()) * 1000;
  const date = Date.parse(value);
  return Number.isFinite(date) ? Math.max(0, date - now) : undefined;
}

/** Classifies an HTTP status: 429/418 rate limiting, 5xx unavailable, anything else refused. */
export function failureForStatus(status: number, body: string, retryAfter?: number): Failure {
  const cause = { status, body: truncate(body), ...(retryAfter === undefined ? {} : { retryAfterMs: retryAfter }) };
  if (status === 429 || status === 418) return { failure: 'rate-limited', status, cause, ...(retryAfter === undefined ? {} : { retryAfterMs: retryAfter }) };
  if (status >= 500) return { failure: 'unavailable', status, cause };
  return { failure: 'provider-error', status, cause };
}

/** Thrown into an attempt whose time ran out (its reason, to tell it from the caller's abort). */
class AttemptTimeout extends Error {
  constructor() {
    super('attempt timed out');
    this.name = 'AttemptTimeout';
  }
}

/**
 * Runs `attempt` until it succeeds, fails for good, or the retries are spent. Each attempt gets
 * a signal that aborts on the caller's abort or after `policy.timeoutMs`; an attempt that
 * ignores it is raced, so the caller stops waiting anyway.
 */
export async function withRetries<T>(input: {
  source: TMarketSource;
  /** The provider's name in messages, e.g. 'Binance'. */
  name: string;
  policy: RetryPolicy;
  /** When an attempt stops being waited for (default policy.timeoutMs). */
  attemptTimeoutMs?: number;
  signal: AbortSignal;
  attempt: (signal: AbortSignal) => Promise<T>;
  classify: (err: unknown) => Failure;
  /** A random number in [0, 1) for the jitter (tests may pin it). */
  random?: () => number;
}): Promise<T> {
  const { source, name, policy, signal } = input;
  const random = input.random ?? Math.random;
  let last: Failure | null = null;
  for (let attempt = 0; attempt <= policy.retries; attempt++) {
    if (attempt > 0) {
      const backoff = Math.min(MAX_BACKOFF_MS, policy.backoffMs * 2 ** (attempt - 1)) * (0.5 + random() / 2);
      const delay = Math.max(backoff, last?.retryAfterMs ?? 0);
      await sleep(delay, signal).catch(() => {
        throw cancelled(source, name);
      });
    }
    if (signal.aborted) throw cancelled(source, name);

    const controller = new AbortController();
    const onAbort = () => controller.abort(signal.reason);
    signal.addEventListener('abort', onAbort, { once: true });
    const timer = setTimeout(() => controller.abort(new AttemptTimeout()), input.attemptTimeoutMs ?? policy.timeoutMs);
    try {
      return await raceAbort(input.attempt(controller.signal), controller.signal);
    } catch (err) {
      if (signal.aborted) throw cancelled(source, name);
      last =
        controller.signal.aborted && controller.signal.reason instanceof AttemptTimeout
          ? { failure: 'timeout', cause: { error: 'attempt timed out' } }
          : input.classify(err);
      if (!RETRIED.has(last.failure)) {
        throw new MarketDataError(source, last.failure, { ...last.cause, failure: last.failure, attempts: attempt + 1, detail: last.detail ?? `${name} refused the request` });
      }
      if ((last.retryAfterMs ?? 0) > MAX_RETRY_AFTER_MS) {
        const wait = seconds(last.retryAfterMs!);
        throw new MarketDataError(source, last.failure, { ...last.cause, failure: last.failure, attempts: attempt + 1, detail: `${name} asked us to wait ${wait} s before asking again` });
      }
    } finally {
      clearTimeout(timer);
      signal.removeEventListener('abort', onAbort);
    }
  }
  throw finalError(source, name, last!, policy);
}

/** The last failure once the retries are spent; the log gets what happened in words. */
function finalError(source: TMarketSource, name: string, last: Failure, policy: RetryPolicy): MarketDataError {
  const retries = policy.retries === 0 ? 'no retries' : policy.retries === 1 ? '1 retry' : `${policy.retries} retries`;
  const detail =
    last.failure === 'rate-limited'
      ? `${name} is rate limiting requests (${last.status ?? 429}, ${retries})`
      : last.failure === 'timeout'
        ? `${name} did not answer in ${seconds(policy.timeoutMs)} s (${retries})`
        : last.status
          ? `${name} is unavailable (HTTP ${last.status}, ${retries})`
          : `${name} could not be reached (${retries})`;
  return new MarketDataError(source, last.failure, { ...last.cause, failure: last.failure, attempts: policy.retries + 1, detail });
}

const cancelled = (source: TMarketSource, name: string) => new MarketDataError(source, 'cancelled', { failure: 'cancelled', detail: `${name} request was cancelled` });

/** 10000 → '10', 250 → '0.25'. */
const seconds = (ms: number) => String(Math.round(ms / 10) / 100);

/** Settles as `promise`, or rejects with the signal's reason as soon as it aborts. */
export function raceAbort<T>(promise: Promise<T>, signal: AbortSignal): Promise<T> {
  if (signal.aborted) {
    promise.catch(() => {}); // the attempt goes on unobserved; its late failure is not ours
    return Promise.reject(signal.reason);
  }
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => {
      promise.catch(() => {});
      reject(signal.reason);
    };
    signal.addEventListener('abort', onAbort, { once: true });
    promise.then(
      (value) => {
        signal.removeEventListener('abort', onAbort);
        resolve(value);
      },
      (err: unknown) => {
        signal.removeEventListener('abort', onAbort);
        reject(err);
      },
    );
  });
}

export function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason);
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal!.reason);
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}

export function truncate(text: string, max = 300): string {
  return text.length > max ? `${text.slice(0, max)}…` : text;
}

/** Weekly candles open on Monday 00:00 UTC (as on the exchanges and Yahoo); the epoch was a Thursday. */
export const WEEK_OFFSET_MS = 4 * 86_400_000;

/** Open time of the `timeframe` candle holding `time` (weekly candles open on Mondays). */
export function candleOpen(time: number, timeframe: TCandleTimeframe): number {
  const step = TIMEFRAME_MS[timeframe];
  const offset = timeframe === '1w' ? WEEK_OFFSET_MS : 0;
  return Math.floor((time - offset) / step) * step + offset;
}

/**
 * Merges candles into larger ones (1h into 4h, 1d into 1w, ...): each bucket opens at
 * `offsetMs` + a multiple of `bucketMs`. Input and output are oldest first. With
 * `dropPartialFirst` (markets that trade around the clock), a first bucket whose opening
 * candle is missing is dropped: its open would be wrong.
 */
export function aggregateCandles(candles: readonly TCandle[], bucketMs: number, offsetMs = 0, dropPartialFirst = false): TCandle[] {
  const out: TCandle[] = [];
  const bucketOf = (time: number) => Math.floor((time - offsetMs) / bucketMs) * bucketMs + offsetMs;
  for (const c of candles) {
    const time = bucketOf(c.time);
    const current = out.at(-1);
    if (current && current.time === time) {
      current.high = Math.max(current.high, c.high);
      current.low = Math.min(current.low, c.low);
      current.close = c.close;
      current.volume += c.volume;
    } else {
      out.push({ ...c, time });
    }
  }
  const first = candles[0];
  if (dropPartialFirst && first && bucketOf(first.time) !== first.time) out.shift();
  return out;
}
