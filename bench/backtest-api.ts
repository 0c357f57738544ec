import { defaultAgentConfig, findTemplate } from '../contracts/agents.ts';
import { ZBacktestEvent, type TBacktestResult } from '../contracts/backtest.ts';
import { ADMIN_EMAIL } from '../tests/e2e/support/constants.ts';
import { FAKE_STOCKS, startFakeYahoo } from '../tests/fakes/yahoo.ts';
import { startAppServer } from './lib.ts';
import type { Benchmark } from './types.ts';

const REQUESTS = 60;
const QUICK_REQUESTS = 15;
const TARGET_P95_MS = 300;
/** The five stocks the fake Yahoo lists. */
const SYMBOLS = Object.keys(FAKE_STOCKS).join(' ');

const percentile = (values: number[], p: number) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]!;
};

/**
 * Issue 16 item 5, second half: a whole test from the wizard (5 stocks, the default 500 candles
 * each, the template's default indicators) on a server whose history cache already holds the
 * candles, timed from the request to the parsed result, as the wizard waits for it. The
 * reference is the same server's answer to `GET /api/agents` in the same run: a signed-in admin
 * request that reads the database and returns JSON, the floor any API answer pays.
 */
const backtestApi: Benchmark = {
  name: 'backtest-api',
  description: 'Test on history from the wizard with cached history: p95 answer time',
  async run({ quick, log }) {
    const yahoo = await startFakeYahoo();
    const server = await startAppServer({ env: { ...yahoo.env, MARKET_DATA: 'live', BACKTEST_RATE_LIMIT: '100000', WRITE_RATE_LIMIT: '100000' } });
    try {
      const login = await fetch(`${server.url}/api/auth/local/login`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', origin: server.url },
        body: JSON.stringify({ email: ADMIN_EMAIL, name: 'Bench' }),
      });
      const cookie = login.headers.getSetCookie()[0]!.split(';')[0]!;
      const headers = { cookie, origin: server.url, 'content-type': 'application/json', 'accept-encoding': 'gzip' };
      const defaults = defaultAgentConfig(findTemplate('stock-market-scanner')!);
      const body = JSON.stringify({ templateId: 'stock-market-scanner', config: { ...defaults, parameters: { ...defaults.parameters, symbols: SYMBOLS } }, candles: 500 });

      const test = async (): Promise<{ ms: number; result: TBacktestResult }> => {
        const started = performance.now();
        const res = await fetch(`${server.url}/api/agents/backtest`, { method: 'POST', headers, body });
        const lines = (await res.text()).split('\n').filter(Boolean);
        const last = ZBacktestEvent.parse(JSON.parse(lines.at(-1)!));
        if (last.type !== 'result') throw new Error(`the test did not answer a result: ${lines.at(-1)}`);
        return { ms: performance.now() - started, result: last.result };
      };
      // The first test fills the cache from the fake Yahoo; the measured ones read it.
      const first = await test();
      const failed = first.result.markets.filter((m) => !m.ok);
      if (failed.length > 0) throw new Error(`markets failed: ${JSON.stringify(failed)}`);
      log(`first test (fetching history): ${first.ms.toFixed(0)} ms`);
      const yahooBefore = yahoo.requests().length;

      const n = quick ? QUICK_REQUESTS : REQUESTS;
      const ours: number[] = [];
      const reference: number[] = [];
      for (let i = 0; i < n; i++) {
        ours.push((await test()).ms);
        const started = performance.now();
        await (await fetch(`${server.url}/api/agents`, { headers: { cookie } })).text();
        reference.push(performance.now() - started);
      }
      const fetched = yahoo.requests().length - yahooBefore;
      const p95 = percentile(ours, 95);
      const refP95 = percentile(reference, 95);
      log(`${n} cached tests: p50 ${percentile(ours, 50).toFixed(1)} ms, p95 ${p95.toFixed(1)} ms; Yahoo requests meanwhile: ${fetched}`);
      return [
        {
          name: 'backtest-api p95 (5 stocks x 500, cached)',
          unit: 'ms',
          ours: p95,
          reference: refP95,
          ratio: p95 / refP95,
          target: `< ${TARGET_P95_MS} ms`,
          met: p95 < TARGET_P95_MS,
          note: `reference: GET /api/agents p95 on the same server; ${fetched} Yahoo requests during the cached tests`,
        },
      ];
    } finally {
      await server.stop();
      await yahoo.close();
    }
  },
};

export default backtestApi;
