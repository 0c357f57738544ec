import pino from 'pino';
import { TOOL_LIMITS } from '../contracts/assistant-tools.ts';
import { loadConfig } from '../server/config.ts';
import { openDatabase } from '../server/db/client.ts';
import type { SessionUser } from '../server/lib/http/types.ts';
import { createAgentTools } from '../server/modules/agent-tools/agent-tools.ts';
import { createAgentsService } from '../server/modules/agents/agents.service.ts';
import { createBacktestService } from '../server/modules/backtest/backtest.service.ts';
import { createMarketData } from '../server/modules/market/market-data.ts';
import { tickOf } from '../server/modules/runtime/run-executor.ts';
import { createProposalsService } from '../server/modules/proposals/proposals.service.ts';
import { insertUser } from '../server/modules/users/users.repo.ts';
import { startFakeExchanges } from '../tests/fakes/exchanges.ts';
import type { Benchmark } from './types.ts';

const CALLS = 200;
const QUICK_CALLS = 40;
const TARGET_P95_MS = 20;
const MARKET = { source: 'binance', symbol: 'BTC/USDT', timeframe: '1h' } as const;

const percentile = (values: number[], p: number) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]!;
};

/**
 * Issue 31's speed target for get_market: an assistant's read of a market whose candles the
 * runs' cache already holds this minute (30 hourly candles of BTC/USDT on the fake Binance, the
 * usual indicators and a condition's sides), through the whole tool (`agentTools.run`: the role
 * read, the rate, the arguments' check, the candles, the indicators, the JSON), in process on
 * PGlite. The reference is the same candles read straight from the market data's cache
 * (`MarketData.getCandles` in the same tick), interleaved call for call.
 */
const agentToolsBench: Benchmark = {
  name: 'agent-tools',
  description: 'get_market through the agent tools with cached candles: p95, against a direct market-data cache read',
  async run({ quick, log }) {
    const exchanges = await startFakeExchanges();
    const logger = pino({ level: 'warn' });
    const config = loadConfig({ ...process.env, ...exchanges.env, MARKET_DATA: 'live', SESSION_SECRET: 'bench-secret-bench-secret-bench-secret!', DATA_DIR: '' }, { inMemoryDatabase: true });
    const database = await openDatabase({ kind: 'pglite', dataDir: null }, logger);
    const marketData = createMarketData(config.market, { logger, db: database.db });
    try {
      const { db } = database;
      const row = await insertUser(db, { provider: 'local', subject: 'bench@example.com', email: 'bench@example.com', name: 'Bench', profilePicture: '', role: 'admin' });
      const user: SessionUser = { ...row, role: 'admin' };
      const agents = createAgentsService({ db, jobs: { enqueueRuns: async () => {} } });
      const tools = createAgentTools({
        db,
        agents,
        backtests: createBacktestService({ agents, marketData, logger, limits: { ratePerMinute: 1_000_000, concurrency: 4 } }),
        marketData,
        notifications: { listJson: async () => '{"notifications":[],"unread":0}' },
        proposals: createProposalsService({ db, agents }),
        marketReadsPerMinute: 1_000_000,
        limits: { ...TOOL_LIMITS, callsPerMinute: 1_000_000 },
      });
      const caller = { user, source: 'chat' as const, sourceName: 'Bench', scope: 'read' as const, rateKey: 'bench', conversationId: null, signal: new AbortController().signal, log: logger };
      const args = JSON.stringify({
        market: { kind: 'crypto', symbol: MARKET.symbol, exchange: MARKET.source },
        timeframe: MARKET.timeframe,
        candles: 30,
        condition: {
          id: '11111111-1111-4111-8111-111111111111',
          when: { kind: 'group', join: 'all', clauses: [{ kind: 'clause', left: { indicator: 'rsi', period: 14 }, operator: 'crosses-above', right: { indicator: 'number', value: 30 } }] },
          trigger: { mode: 'once-per-close' },
        },
      });
      const ours = async () => {
        const started = performance.now();
        const outcome = await tools.run(caller, 'get_market', args);
        if (outcome.status !== 'ok') throw new Error(`get_market: ${outcome.status} ${outcome.summary}`);
        return performance.now() - started;
      };
      // The candles the tool asks for (MACD's warm-up and the forming one), read as a run of this minute reads them.
      const direct = async () => {
        const started = performance.now();
        await marketData.getCandles({ ...MARKET, limit: 39 }, tickOf(new Date()));
        return performance.now() - started;
      };
      // The first call fetches the minute's candles; the measured ones read them from the tick's cache.
      log(`first get_market (fetching history): ${(await ours()).toFixed(1)} ms`);
      for (let i = 0; i < 10; i++) await Promise.all([ours(), direct()]);
      const requestsBefore = exchanges.requests().length;
      const n = quick ? QUICK_CALLS : CALLS;
      const toolMs: number[] = [];
      const directMs: number[] = [];
      for (let i = 0; i < n; i++) {
        toolMs.push(await ours());
        directMs.push(await direct());
      }
      const p95 = percentile(toolMs, 95);
      const refP95 = percentile(directMs, 95);
      log(`${n} calls: get_market p50 ${percentile(toolMs, 50).toFixed(2)} ms, p95 ${p95.toFixed(2)} ms; direct read p50 ${percentile(directMs, 50).toFixed(2)} ms, p95 ${refP95.toFixed(2)} ms`);
      return [
        {
          name: 'agent-tools get_market p95 (cached candles)',
          unit: 'ms',
          ours: p95,
          reference: refP95,
          ratio: p95 / refP95,
          target: `< ${TARGET_P95_MS} ms`,
          met: p95 < TARGET_P95_MS,
          note: `reference: MarketData.getCandles of the same market in the same tick; ${exchanges.requests().length - requestsBefore} exchange requests during the measured calls (a new minute fetches anew)`,
        },
      ];
    } finally {
      await marketData.close();
      await database.close();
      await exchanges.close();
    }
  },
};

export default agentToolsBench;
