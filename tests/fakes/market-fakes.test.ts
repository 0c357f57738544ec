import { spawn, type ChildProcess } from 'node:child_process';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { mulberry32 } from '../support/seeded-random.ts';
import { candleTimes, newFaultState, pickFailure, setFaultState, startFakeExchanges } from './exchanges.ts';
import { startFakeYahoo } from './yahoo.ts';

// The market data tests and the browser journeys trust these fakes; these pin down their controls.

const children: ChildProcess[] = [];
afterEach(() => {
  for (const child of children.splice(0)) child.kill('SIGTERM');
});

/** Starts a fake as Playwright will (`node <file>`) and reads the env lines it prints. */
async function standalone(file: string, portVariable: string, lines: number): Promise<Record<string, string>> {
  const child = spawn(process.execPath, [fileURLToPath(new URL(file, import.meta.url))], {
    env: { ...process.env, [portVariable]: '0' },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  children.push(child);
  const env: Record<string, string> = {};
  for await (const line of createInterface({ input: child.stdout! })) {
    const [key, ...value] = line.split('=');
    env[key!] = value.join('=');
    if (Object.keys(env).length === lines) break;
  }
  return env;
}

describe('standalone', () => {
  it('runs the exchanges fake as a process, steered over HTTP', async () => {
    const env = await standalone('./exchanges.ts', 'FAKE_EXCHANGES_PORT', 5);
    expect(Object.keys(env).sort()).toEqual(['BINANCE_BASE_URL', 'COINBASE_BASE_URL', 'HTX_BASE_URL', 'KRAKEN_BASE_URL', 'KUCOIN_BASE_URL']);
    const root = env.BINANCE_BASE_URL!.replace(/\/binance$/, '');
    const post = (path: string, body: unknown) => fetch(`${root}${path}`, { method: 'POST', body: JSON.stringify(body) });

    expect((await post('/__control/fail-next', { exchange: 'kraken', count: 1, fault: '500' })).status).toBe(200);
    expect((await fetch(`${env.KRAKEN_BASE_URL}/0/public/Assets`)).status).toBe(500);
    expect((await fetch(`${env.KRAKEN_BASE_URL}/0/public/Assets`)).status).toBe(200);
    expect((await post('/__control/fault', { exchange: 'binance', fault: '429' })).status).toBe(200);
    expect((await fetch(`${env.BINANCE_BASE_URL}/api/v3/exchangeInfo`)).status).toBe(429);
    expect((await post('/__control/fault', { exchange: 'binance', fault: 'nonsense' })).status).toBe(400);

    const { requests } = (await (await fetch(`${root}/__control/requests`)).json()) as { requests: Array<{ exchange: string; outcome: number }> };
    expect(requests.map((r) => `${r.exchange} ${r.outcome}`)).toEqual(['kraken 500', 'kraken 200', 'binance 429']);
    await post('/__control/reset', {});
    expect((await fetch(`${env.BINANCE_BASE_URL}/api/v3/exchangeInfo`)).status).toBe(200);
  });

  it('runs the Yahoo fake as a process', async () => {
    const env = await standalone('./yahoo.ts', 'FAKE_YAHOO_PORT', 1);
    expect(Object.keys(env)).toEqual(['YAHOO_BASE_URL']);
    const chart = await fetch(`${env.YAHOO_BASE_URL}/v8/finance/chart/AAPL?interval=1d&period1=1709000000&period2=1709700000`);
    expect(chart.status).toBe(200);
    const unknown = await fetch(`${env.YAHOO_BASE_URL}/v8/finance/chart/NOPE?interval=1d&period1=1709000000&period2=1709700000`);
    expect(unknown.status).toBe(404);
    expect(await unknown.json()).toEqual({ chart: { result: null, error: { code: 'Not Found', description: 'No data found, symbol may be delisted' } } });
  });
});

describe('faults', () => {
  it('flaky is seeded: the same seed fails the same requests', () => {
    const run = (seed: number) => {
      const state = newFaultState();
      setFaultState(state, 'flaky', { probability: 0.3, seed });
      return Array.from({ length: 40 }, () => pickFailure(state));
    };
    const first = run(7);
    expect(run(7)).toEqual(first);
    expect(run(8)).not.toEqual(first);
    const failures = first.filter((f) => f !== null);
    expect(failures.length).toBeGreaterThan(3);
    expect(failures.length).toBeLessThan(30);
    expect(new Set(failures)).toEqual(new Set(['429', '500', 'hang']));
  });

  it('a hanging request is ended by close()', async () => {
    const fake = await startFakeExchanges();
    fake.setFault('htx', 'hang');
    const pending = fetch(`${fake.baseUrls.htx}/v1/common/symbols`).then(
      () => 'answered',
      () => 'closed',
    );
    await new Promise((resolve) => setTimeout(resolve, 30));
    expect(fake.requests('htx')[0]!.outcome).toBe('hang');
    await fake.close();
    expect(await pending).toBe('closed');
  });

  it('Yahoo answers 429 and 500 in plain text, as Yahoo does', async () => {
    const fake = await startFakeYahoo();
    try {
      fake.failNext(2, '429');
      const first = await fetch(`${fake.baseUrl}/v8/finance/chart/AAPL?interval=1d&period1=1709000000`);
      expect(first.status).toBe(429);
      expect(await first.text()).toBe('Too Many Requests\r\n');
      fake.setFault('500');
      expect((await fetch(`${fake.baseUrl}/v8/finance/chart/AAPL`)).status).toBe(429);
      expect((await fetch(`${fake.baseUrl}/v8/finance/chart/AAPL`)).status).toBe(500);
    } finally {
      await fake.close();
    }
  });
});

describe('candle ranges', () => {
  it('ends at the current candle and honours start, end and limit', () => {
    const hour = 3_600_000;
    const now = Date.parse('2025-06-04T12:34:56Z');
    const current = Date.parse('2025-06-04T12:00:00Z');
    expect(candleTimes(hour, { limit: 3 }, now)).toEqual([current - 2 * hour, current - hour, current]);
    expect(candleTimes(hour, { start: current - 5 * hour + 1, limit: 2 }, now)).toEqual([current - 4 * hour, current - 3 * hour]);
    expect(candleTimes(hour, { end: current - hour, limit: 2 }, now)).toEqual([current - 2 * hour, current - hour]);
    expect(candleTimes(hour, { start: current - hour, limit: 10 }, now)).toEqual([current - hour, current]);
    expect(mulberry32(1)()).toBe(mulberry32(1)());
  });
});

describe('history as the real services page it', () => {
  const HOUR = 3_600_000;
  const DAY = 86_400_000;

  it('answers as each exchange does to history requests: page sizes, Kraken’s 720, Coinbase’s refusal, Binance’s Retry-After', async () => {
    const fake = await startFakeExchanges();
    try {
      const now = Date.now();
      const old = now - 5000 * HOUR;
      const binance = (await (await fetch(`${fake.baseUrls.binance}/api/v3/klines?symbol=BTCUSDT&interval=1h&startTime=${old}&limit=1500`)).json()) as unknown[][];
      expect(binance).toHaveLength(1000); // at most 1000, from startTime on
      expect(binance[0]![0]).toBe(Math.ceil(old / HOUR) * HOUR);

      const kraken = (await (await fetch(`${fake.baseUrls.kraken}/0/public/OHLC?pair=XXBTZUSD&interval=60&since=${Math.floor(old / 1000)}`)).json()) as { result: { XXBTZUSD: unknown[][] } };
      expect(kraken.result.XXBTZUSD).toHaveLength(720); // its latest 720 only, whatever since says
      expect(kraken.result.XXBTZUSD.at(-1)![0]).toBe((Math.floor(now / HOUR) * HOUR) / 1000);

      const tooWide = await fetch(`${fake.baseUrls.coinbase}/products/BTC-USD/candles?granularity=3600&start=${new Date(old).toISOString()}&end=${new Date(old + 300 * HOUR).toISOString()}`);
      expect(tooWide.status).toBe(400);
      expect(await tooWide.json()).toEqual({ message: 'granularity too small for the requested time range. Count of aggregations requested exceeds 300' });

      fake.failNext('binance', 1, '429');
      fake.setRetryAfter('binance', 7);
      const limited = await fetch(`${fake.baseUrls.binance}/api/v3/klines?symbol=BTCUSDT&interval=1h&limit=5`);
      expect(limited.status).toBe(429);
      expect(limited.headers.get('retry-after')).toBe('7');
      expect(((await limited.json()) as { code: number }).code).toBe(-1003);

      fake.listSince('binance', now - 10 * HOUR);
      const listed = (await (await fetch(`${fake.baseUrls.binance}/api/v3/klines?symbol=BTCUSDT&interval=1h&startTime=${old}&limit=1000`)).json()) as unknown[][];
      expect(listed).toHaveLength(11); // from the listing on, not empty
    } finally {
      await fake.close();
    }
  });

  it('refuses intraday ranges beyond Yahoo’s limits with its 422 and words, whole', async () => {
    const now = Date.parse('2024-03-06T18:05:00Z');
    const fake = await startFakeYahoo({ now: () => now });
    try {
      const chart = (interval: string, from: number, to: number) =>
        fetch(`${fake.baseUrl}/v8/finance/chart/AAPL?interval=${interval}&period1=${Math.floor(from / 1000)}&period2=${Math.floor(to / 1000)}`);
      const s = (t: number) => Math.floor(t / 1000);

      const beyond60 = await chart('5m', now - 61 * DAY, now);
      expect(beyond60.status).toBe(422);
      expect(await beyond60.json()).toEqual({
        chart: {
          result: null,
          error: { code: 'Unprocessable Entity', description: `5m data not available for startTime=${s(now - 61 * DAY)} and endTime=${s(now)}. The requested range must be within the last 60 days.` },
        },
      });
      const week = await chart('1m', now - 8 * DAY, now);
      expect(week.status).toBe(422);
      expect(((await week.json()) as { chart: { error: { description: string } } }).chart.error.description).toMatch(/Only 7 days worth of 1m granularity data are allowed to be fetched per request\.$/);
      expect((await chart('1m', now - 31 * DAY, now - 25 * DAY)).status).toBe(422);
      expect((await chart('1m', now - 7 * DAY, now)).status).toBe(200);
      expect((await chart('60m', now - 729 * DAY, now)).status).toBe(200);
      expect((await chart('60m', now - 731 * DAY, now)).status).toBe(422);
      expect((await chart('1d', now - 5000 * DAY, now)).status).toBe(200);
    } finally {
      await fake.close();
    }
  });
});
