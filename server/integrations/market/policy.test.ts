import { describe, expect, it } from 'vitest';
import { MARKET_FAILURES, type TCandle } from '../../../contracts/market.ts';
import { MarketDataError } from './candle-source.ts';
import { aggregateCandles, failureForStatus, retryAfterMs, WEEK_OFFSET_MS, withRetries, type Failure } from './policy.ts';

const policy = { retries: 3, timeoutMs: 1_000, backoffMs: 10 };
const rateLimited: Failure = { failure: 'rate-limited', status: 429, cause: { status: 429 } };

function run(attempt: (signal: AbortSignal) => Promise<string>, overrides: Partial<Parameters<typeof withRetries>[0]> = {}) {
  return withRetries({ source: 'binance', name: 'Binance', policy, signal: new AbortController().signal, attempt, classify: () => rateLimited, random: () => 0.5, ...overrides });
}

describe('withRetries', () => {
  it('ends the retries at once when the provider asks for a longer wait than we give (Retry-After)', async () => {
    let calls = 0;
    const err = await run(
      async () => {
        calls++;
        throw new Error('429');
      },
      { classify: () => failureForStatus(429, '{"code":-1003}', 30_000) },
    ).catch((e: unknown) => e);
    expect(calls).toBe(1);
    expect(err).toMatchObject({ failure: 'rate-limited', logCause: { detail: 'Binance asked us to wait 30 s before asking again', retryAfterMs: 30_000, attempts: 1 } });
  });

  it('reads Retry-After as seconds or a date, whatever the header name’s case', () => {
    expect(retryAfterMs({ 'Retry-After': '7' })).toBe(7_000);
    expect(retryAfterMs(new Headers({ 'retry-after': '0' }))).toBe(0);
    expect(retryAfterMs({ 'retry-after': 'Wed, 21 Oct 2015 07:28:10 GMT' }, Date.parse('Wed, 21 Oct 2015 07:28:00 GMT'))).toBe(10_000);
    expect(retryAfterMs({ 'content-type': 'application/json' })).toBeUndefined();
  });

  it('backs off exponentially between attempts, then succeeds', async () => {
    const at: number[] = [];
    let calls = 0;
    const value = await run(async () => {
      at.push(Date.now());
      if (++calls < 4) throw new Error('429');
      return 'ok';
    });
    expect(value).toBe('ok');
    expect(calls).toBe(4);
    // Backoffs of 10, 20 and 40 ms times the jitter factor 0.75.
    const gaps = at.slice(1).map((t, i) => t - at[i]!);
    expect(gaps[0]).toBeGreaterThanOrEqual(6);
    expect(gaps[2]).toBeGreaterThanOrEqual(28);
  });

  it('fails at once on a failure that does not pass, with its sentence and our detail for the log', async () => {
    let calls = 0;
    const err = await run(
      async () => {
        calls++;
        throw new Error('bad symbol');
      },
      { classify: () => ({ failure: 'unknown-symbol', detail: 'Binance does not list X/USDT', cause: { message: 'binance {"code":-1121,"msg":"Invalid symbol."}' } }) },
    ).catch((e: unknown) => e);
    expect(calls).toBe(1);
    expect(err).toBeInstanceOf(MarketDataError);
    expect((err as MarketDataError).failure).toBe('unknown-symbol');
    expect((err as MarketDataError).message).toBe(MARKET_FAILURES['unknown-symbol']);
    expect((err as MarketDataError).logCause).toMatchObject({ detail: 'Binance does not list X/USDT', message: expect.stringContaining('Invalid symbol.'), attempts: 1 });
  });

  it('ends with the last failure\'s kind; the log gets the retries spent and the provider\'s words', async () => {
    const fail = async (): Promise<string> => {
      throw new Error('x');
    };
    const settle = (overrides: Partial<Parameters<typeof withRetries>[0]>) => run(fail, overrides).catch((e: unknown) => e as MarketDataError);
    expect(await settle({ policy: { ...policy, retries: 0 } })).toMatchObject({
      failure: 'rate-limited',
      message: MARKET_FAILURES['rate-limited'],
      logCause: { detail: 'Binance is rate limiting requests (429, no retries)', attempts: 1 },
    });
    expect(await settle({ classify: () => failureForStatus(503, 'upstream connect error') })).toMatchObject({
      failure: 'unavailable',
      message: MARKET_FAILURES.unavailable,
      logCause: { detail: 'Binance is unavailable (HTTP 503, 3 retries)', body: 'upstream connect error', attempts: 4 },
    });
    expect(await settle({ classify: () => ({ failure: 'unreachable', cause: {} }) })).toMatchObject({
      failure: 'unreachable',
      message: MARKET_FAILURES.unreachable,
      logCause: { detail: 'Binance could not be reached (3 retries)' },
    });
  });

  it('classifies a refused request (4xx) as a provider error and does not retry it', async () => {
    let calls = 0;
    const err = (await run(
      async () => {
        calls++;
        throw new Error('400');
      },
      { classify: () => failureForStatus(400, '{"code":-1100,"msg":"Illegal characters found in parameter \'symbol\'"}') },
    ).catch((e: unknown) => e)) as MarketDataError;
    expect(calls).toBe(1);
    expect(err).toMatchObject({ failure: 'provider-error', message: MARKET_FAILURES['provider-error'] });
    expect(err.logCause.body).toContain('Illegal characters');
  });

  it('counts an attempt that outlives its time as a timeout, even if it ignores the signal', async () => {
    const never = () => new Promise<string>(() => {});
    const started = Date.now();
    const err = (await run(never, { policy: { retries: 1, timeoutMs: 40, backoffMs: 1 } }).catch((e: unknown) => e)) as MarketDataError;
    expect(err).toMatchObject({ failure: 'timeout', message: MARKET_FAILURES.timeout, logCause: { detail: 'Binance did not answer in 0.04 s (1 retry)' } });
    expect(Date.now() - started).toBeLessThan(500);
  });

  it('stops at once when the caller aborts, even during a backoff', async () => {
    const controller = new AbortController();
    const pending = run(
      async () => {
        throw new Error('429');
      },
      { signal: controller.signal, policy: { retries: 3, timeoutMs: 1_000, backoffMs: 10_000 } },
    );
    setTimeout(() => controller.abort(), 20);
    const started = Date.now();
    await expect(pending).rejects.toMatchObject({ failure: 'cancelled', message: MARKET_FAILURES.cancelled, logCause: { detail: 'Binance request was cancelled' } });
    expect(Date.now() - started).toBeLessThan(500);
  });
});

describe('aggregateCandles', () => {
  const hour = 3_600_000;
  const candle = (time: number, close: number): TCandle => ({ time, open: close - 1, high: close + 1, low: close - 2, close, volume: 1 });

  it('merges into buckets: first open, last close, extremes, summed volume', () => {
    const hours = [0, 1, 2, 3, 4, 5].map((n) => candle(n * hour, 100 + n));
    expect(aggregateCandles(hours, 4 * hour)).toEqual([
      { time: 0, open: 99, high: 104, low: 98, close: 103, volume: 4 },
      { time: 4 * hour, open: 103, high: 106, low: 102, close: 105, volume: 2 },
    ]);
  });

  it('drops a first bucket that misses its opening candle when asked', () => {
    const hours = [2, 3, 4, 5].map((n) => candle(n * hour, 100 + n));
    expect(aggregateCandles(hours, 4 * hour, 0, true).map((c) => c.time)).toEqual([4 * hour]);
    expect(aggregateCandles(hours, 4 * hour).map((c) => c.time)).toEqual([0, 4 * hour]);
  });

  it('starts weeks on Monday', () => {
    const day = 86_400_000;
    const wednesday = Date.parse('2025-06-04T00:00:00Z');
    const [week] = aggregateCandles([candle(wednesday, 1), candle(wednesday + day, 2)], 7 * day, WEEK_OFFSET_MS);
    expect(new Date(week!.time).toISOString()).toBe('2025-06-02T00:00:00.000Z');
  });
});
