import type { FastifyBaseLogger as Logger } from 'fastify';
import { followDefaultMessage } from '../../../contracts/alert-thresholds.ts';
import { notificationsPerHour, type TAgentConfig } from '../../../contracts/agents.ts';
import { BACKTEST_CANDLES_LABEL, BACKTEST_WORK_MAX, ZAgentBacktestRequest, ZBacktestRequest, type TBacktestMarket, type TBacktestResult } from '../../../contracts/backtest.ts';
import { MARKET_FAILURES, tooFewCandlesError } from '../../../contracts/market.ts';
import { formatLimit } from '../../../contracts/number-format.ts';
import { MarketDataError } from '../../integrations/market/candle-source.ts';
import { AppError } from '../../lib/errors.ts';
import { createRateWindow } from '../../lib/rate-window.ts';
import type { AgentsService, Caller } from '../agents/agents.service.ts';
import { checkAgentRequest, fieldOf, validateAgentConfig } from '../agents/validate-config.ts';
import type { MarketData } from '../market/market-data.ts';
import { marketsOf } from '../runtime/run-executor.ts';
import { planRun, type RunPlan } from '../runtime/run-plan.ts';
import type { TCandle, TCandleTimeframe } from '../../../contracts/market.ts';
import { historyNeeded, longerHistoryNeeded, runBacktest, type BacktestMarketInput } from './backtest-engine.ts';

export type BacktestServiceDeps = {
  agents: Pick<AgentsService, 'get'>;
  marketData: MarketData;
  logger: Logger;
  now?: () => Date;
  /** Tests per user per minute, and tests loading history at once in this process. */
  limits: { ratePerMinute: number; concurrency: number };
};

/** Progress while history loads: `loaded` of `total` candles of one market (its label). */
export type BacktestProgress = (market: string, loaded: number, total: number) => void;

/** A test that passed every check and holds its slot: run it once, then it frees the slot. */
export type BacktestJob = { run(signal: AbortSignal, onProgress: BacktestProgress): Promise<TBacktestResult> };

/** A market's history fails with fewer candles than any rule needs (a change needs two). */
const MIN_CANDLES = 2;
/** What the owner is told when a test cannot go on for a reason of ours; the cause is logged. */
export const BACKTEST_FAILED_ERROR = 'The test on history failed because of an error on our side. The server log has the details.';

/**
 * "Test on history" (issue 16): an agent's configuration, saved or not, evaluated on the last
 * candles of each market it watches, with the live evaluation (backtest-engine.ts).
 *
 * Every check happens before the answer starts, so a refusal is an ordinary 400/404/429: the
 * configuration as create and update check it, the work bound (markets x candles), then the
 * per-user rate and the process's concurrent tests (each loads history from the providers).
 */
export function createBacktestService({ agents, marketData, logger, now = () => new Date(), limits }: BacktestServiceDeps) {
  const rate = createRateWindow(limits.ratePerMinute);
  let running = 0;

  /** A checked configuration's test (checkAgentRequest has found it fits its template). */
  function prepare(caller: Caller, templateId: string, given: TAgentConfig, candles: number): BacktestJob {
    // The alert texts follow the numbers, as the agent saved with this configuration would have them.
    const config: TAgentConfig = { ...given, notifications: { ...given.notifications, thresholds: given.notifications.thresholds.map(followDefaultMessage) } };
    const plan = planRun(templateId, config);
    const markets = marketsOf(plan, marketData);
    if (markets.length === 0) {
      const problem =
        plan.templateType === 'stock'
          ? { path: 'parameters.symbols', message: 'Symbols name no market to test: check the symbols' }
          : plan.templateType === 'custom'
            ? { path: 'watchlist', message: 'The watchlist names no market to test: add a market' }
            : { path: 'parameters.exchanges', message: 'Exchanges name no market to test: choose an exchange that is open' };
      throw new AppError('BAD_REQUEST', 'Invalid request', [problem]);
    }
    if (markets.length * candles > BACKTEST_WORK_MAX) {
      const most = Math.floor(BACKTEST_WORK_MAX / markets.length);
      throw new AppError('BAD_REQUEST', 'Invalid request', [
        {
          path: 'candles',
          message: `${BACKTEST_CANDLES_LABEL} must be at most ${formatLimit(most)} with ${markets.length} markets (a test reads at most ${formatLimit(BACKTEST_WORK_MAX)} candles in all)`,
        },
      ]);
    }
    // Busy first: a test turned away for that has not used one of the caller's tests.
    if (running >= limits.concurrency) {
      throw new AppError('UNAVAILABLE', 'Other tests on history are loading data right now. Try again in a few seconds.', undefined, { retryAfterSeconds: 5 });
    }
    const slot = rate.take(caller.user.id, now().getTime());
    if (!slot.ok) {
      throw new AppError('RATE_LIMITED', `You can test on history ${limits.ratePerMinute} times a minute. Try again in ${slot.retryAfterSeconds} s.`, undefined, {
        retryAfterSeconds: slot.retryAfterSeconds,
      });
    }
    running++;
    let released = false;
    const release = () => {
      if (!released) running--;
      released = true;
    };
    return {
      async run(signal, onProgress) {
        try {
          return await execute({ templateId, config, plan, candles, markets, signal, onProgress, userId: caller.user.id });
        } finally {
          release();
        }
      },
    };
  }

  async function execute(input: {
    templateId: string;
    config: TAgentConfig;
    plan: RunPlan;
    candles: number;
    markets: ReturnType<typeof marketsOf>;
    signal: AbortSignal;
    onProgress: BacktestProgress;
    userId: string;
  }): Promise<TBacktestResult> {
    const { plan, candles, signal } = input;
    const conditions = input.config.conditions ?? [];
    const started = performance.now();
    const markets = await Promise.all(
      input.markets.map(async (m): Promise<BacktestMarketInput | Extract<TBacktestMarket, { ok: false }>> => {
        const failed = (failure: keyof typeof MARKET_FAILURES, error: string = MARKET_FAILURES[failure]) =>
          ({ ok: false, label: m.label, symbol: m.symbol, source: m.source, simulated: false, failure, error }) as const;
        try {
          const history = await marketData.getHistory(
            { source: m.source, symbol: m.symbol, timeframe: m.timeframe, candles: historyNeeded(plan, candles, conditions, m.timeframe) },
            { signal, onProgress: (loaded, total) => input.onProgress(m.label, loaded, total) },
          );
          if (history.candles.length < MIN_CANDLES) {
            return { ...failed(history.candles.length === 0 ? 'no-data' : 'too-few-candles', tooFewCandlesError(history.candles.length, MIN_CANDLES)), simulated: history.simulated };
          }
          // The longer timeframes the conditions read, over the same period and their own warm-up,
          // through the same market data as live runs (a failure fails the market, as live).
          const longer = new Map<TCandleTimeframe, readonly TCandle[]>();
          for (const [timeframe, count] of longerHistoryNeeded(conditions, m.timeframe, history.candles[0]!.time, now().getTime())) {
            const more = await marketData.getHistory({ source: m.source, symbol: m.symbol, timeframe, candles: count }, { signal });
            longer.set(timeframe, more.candles);
          }
          return { label: m.label, symbol: m.symbol, source: m.source, timeframe: m.timeframe, simulated: history.simulated, candles: history.candles, longer, history: history.coverage };
        } catch (err) {
          if (err instanceof MarketDataError) {
            if (!signal.aborted) logger.warn({ userId: input.userId, market: m.label, cause: err.logCause }, 'test on history could not read a market');
            return failed(err.failure);
          }
          logger.error({ err, userId: input.userId, market: m.label }, 'test on history failed for a market');
          return failed('internal');
        }
      }),
    );
    const loadedMs = performance.now() - started;
    const result = runBacktest({
      templateId: input.templateId,
      plan,
      candles,
      timeZone: input.config.schedule.timeZone,
      channels: { email: input.config.notifications.email, inApp: input.config.notifications.inApp },
      maxPerHour: notificationsPerHour(input.config.notifications),
      conditions,
      markets,
    });
    logger.info(
      { userId: input.userId, templateId: input.templateId, markets: markets.length, candles, loadMs: Math.round(loadedMs), totalMs: Math.round(performance.now() - started) },
      'test on history done',
    );
    return result;
  }

  return {
    /** The wizard's test: a configuration not saved yet. */
    async forConfig(caller: Caller, body: unknown): Promise<BacktestJob> {
      const templateId = fieldOf(body, 'templateId');
      const input = await checkAgentRequest(ZBacktestRequest, body, () => (typeof templateId === 'string' ? validateAgentConfig(templateId, fieldOf(body, 'config')) : []));
      return prepare(caller, input.templateId, input.config, input.candles);
    },
    /** An agent's test: its saved configuration, or `config` (its unsaved edits) in its place. 404 unless the caller's. */
    async forAgent(caller: Caller, id: string, body: unknown): Promise<BacktestJob> {
      const agent = await agents.get(caller, id);
      const given = body ?? {};
      const input = await checkAgentRequest(ZAgentBacktestRequest, given, () => validateAgentConfig(agent.templateId, fieldOf(given, 'config') ?? agent.config));
      return prepare(caller, agent.templateId, input.config ?? agent.config, input.candles);
    },
  };
}

export type BacktestService = ReturnType<typeof createBacktestService>;
