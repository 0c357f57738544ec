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
