import type { FastifyBaseLogger as Logger } from 'fastify';
import type { TCryptoMonitorParameters } from '../../../contracts/agents.ts';
import { thresholdLabel } from '../../../contracts/alert-thresholds.ts';
import {
  EXCHANGE_SOURCES,
  MARKET_FAILURES,
  TEMPLATE_TIMEFRAMES,
  type TCandleTimeframe,
  type TMarketFailure,
  type TMarketResult,
  type TMarketSource,
  type TRunAlert,
  type TRunResult,
} from '../../../contracts/market.ts';
import type { Db } from '../../db/client.ts';
import { MarketDataError } from '../../integrations/market/candle-source.ts';
import { OnChainError, type OnChainSource } from '../../integrations/onchain/onchain-source.ts';
import type { MarketData } from '../market/market-data.ts';
import { candlesNeeded, evaluateMarket, performanceSince, type OnChainInput, type ThresholdCondition } from './evaluate.ts';
import { planRun, RunNotPossible, type RunPlan } from './run-plan.ts';
import { extendLeases, finishRun, startRun, type RunAgent } from './runtime.repo.ts';

/** What the runtime needs from the notifications module (dedupe, in-app rows, emails). */
export type AlertSink = {
  applyAlerts(input: {
    userId: string;
    agentId: string;
    agentName: string;
    runId: number;
    emailEnabled: boolean;
    inAppEnabled: boolean;
    conditions: Array<{ market: string; thresholdType: string; firing: boolean; title: string; message: string }>;
  }): Promise<unknown>;
};

export type RunExecutorDeps = {
  db: Db;
  marketData: MarketData;
  onChain: OnChainSource | null;
  alerts: AlertSink;
  logger: Logger;
  now?: () => Date;
  leaseSeconds: number;
};

/** Stocks the scanner watches at most per run: a typo'd list of hundreds would hammer Yahoo. */
export const MAX_STOCK_SYMBOLS = 25;
const ON_CHAIN_LOOKBACK_MS = 60 * 60_000;
const ON_CHAIN_TIMEOUT_MS = 30_000;

type Market = { label: string; source: TMarketSource; symbol: string; timeframe: TCandleTimeframe };

/** A run that failed for any other reason shows this; the cause is in the log with its ids. */
export const RUN_FAILED_ERROR = 'The run failed because of an error on our side. The server log has the details.';

/** What the log gets about one source a run could not read: the provider's side included. */
type ReadFailure = { market: string; failure: TMarketFailure; cause: Record<string, unknown> };

const causeOf = (err: unknown): Record<string, unknown> =>
  err instanceof MarketDataError || err instanceof OnChainError ? err.logCause : { error: err instanceof Error ? err.name : typeof err, message: err instanceof Error ? err.message : String(err) };

/** The markets an agent watches, from its template's parameters. */
export function marketsOf(plan: RunPlan, marketData: MarketData): Market[] {
  const timeframe = TEMPLATE_TIMEFRAMES[plan.parameters.timeframe];
  if (plan.templateType === 'stock') {
    const symbols = plan.parameters.symbols
      .split(/[\s,;]+/)
      .map((s) => s.trim().toUpperCase())
      .filter((s) => /^[A-Z0-9.^=-]{1,12}$/.test(s));
    return [...new Set(symbols)].slice(0, MAX_STOCK_SYMBOLS).map((symbol) => ({ label: symbol, source: 'yahoo', symbol, timeframe }));
  }
  const { token, exchanges } = plan.parameters;
  return exchanges.flatMap((name) => {
    const source = EXCHANGE_SOURCES[name];
    if (!source) return [];
    const symbol = marketData.cryptoSymbol(source, token);
    return [{ label: `${symbol} on ${source}`, source, symbol, timeframe }];
  });
}

/** A tick is the minute a run belongs to: runs of one minute share their candles. */
export const tickOf = (at: Date) => String(Math.floor(at.getTime() / 60_000));

export function createRunExecutor({ db, marketData, onChain, alerts, logger, now = () => new Date(), leaseSeconds }: RunExecutorDeps) {
  const leaseUntil = () => new Date(now().getTime() + leaseSeconds * 1000);

  // On-chain sources allow few requests (Whale Alert: 10 a minute): one lookup per token per tick.
  let onChainTick = '';
  let onChainByToken = new Map<string, Promise<OnChainInput>>();

  function onChainFor(parameters: TCryptoMonitorParameters, tick: string): Promise<OnChainInput> {
    if (!onChain) return Promise.resolve({ configured: false });
    if (!parameters.includeOnChainMetrics && !parameters.walletTracking) {
      return Promise.resolve({ configured: true, ok: true, transactions: [] });
    }
    if (tick !== onChainTick) {
      onChainTick = tick;
      onChainByToken = new Map();
    }
    const { token } = parameters;
    let pending = onChainByToken.get(token);
    if (!pending) {
      const since = new Date(now().getTime() - ON_CHAIN_LOOKBACK_MS);
      pending = onChain
        .whaleTransactions(token, since, AbortSignal.timeout(ON_CHAIN_TIMEOUT_MS))
        .then((transactions): OnChainInput => ({ configured: true, ok: true, transactions }))
        .catch((err: unknown): OnChainInput => {
          logger.warn({ err }, 'on-chain source failed');
          return { configured: true, ok: false, failure: err instanceof OnChainError ? err.failure : 'internal', cause: causeOf(err) };
        });
      onChainByToken.set(token, pending);
    }
    return pending;
  }

  async function evaluate(agent: RunAgent, runId: number, previous: ReadonlyMap<string, number>, tick: string) {
    const plan = planRun(agent.templateId, agent.config);
    const markets = marketsOf(plan, marketData);
    if (markets.length === 0) throw new RunNotPossible('No market to watch: check the symbols or exchanges.');
    const onChainInput = plan.templateType === 'crypto' ? await onChainFor(plan.parameters, tick) : ({ configured: false } as const);
    const limit = candlesNeeded(plan);

    const conditions: Array<ThresholdCondition & { market: string }> = [];
    const failures: ReadFailure[] = onChainInput.configured && !onChainInput.ok ? [{ market: 'on-chain', failure: onChainInput.failure, cause: onChainInput.cause }] : [];
    const results = await Promise.all(
      markets.map(async (m): Promise<TMarketResult> => {
        try {
          const series = await marketData.getCandles({ source: m.source, symbol: m.symbol, timeframe: m.timeframe, limit }, tick);
          if (series.candles.length < 2) throw new MarketDataError(m.source, 'no-data', { detail: `${m.source} returned ${series.candles.length} candles for ${m.symbol}` });
          const evaluation = evaluateMarket({ plan, market: m.label, candles: series.candles, onChain: onChainInput });
          conditions.push(...evaluation.thresholds.map((t) => ({ ...t, market: m.label })));
          const latest = series.candles.at(-1)!;
          return {
            ok: true,
            symbol: m.symbol,
            source: m.source,
            simulated: series.simulated,
            timeframe: m.timeframe,
            price: latest.close,
            candleTime: new Date(latest.time).toISOString(),
            indicators: evaluation.indicators,
            rules: evaluation.rules,
            chart: evaluation.chart,
          };
        } catch (err) {
          if (!(err instanceof MarketDataError)) logger.error({ err, runId, agentId: agent.id, market: m.label }, 'market evaluation failed');
          const failure = err instanceof MarketDataError ? err.failure : 'internal';
          failures.push({ market: m.label, failure, cause: causeOf(err) });
          return { ok: false, symbol: m.symbol, source: m.source, simulated: false, failure, error: MARKET_FAILURES[failure] };
        }
      }),
    );

    const priceOf = (list: readonly TMarketResult[]) =>
      new Map(list.flatMap((r) => (r.ok ? [[`${r.source}:${r.symbol}`, r.price] as const] : [])));
    const alertsFired: TRunAlert[] = conditions
      .filter((c) => c.firing)
      .map((c) => ({ market: c.market, threshold: c.thresholdType, value: c.value, limit: c.limit, message: c.message }));
    const result: TRunResult = {
      templateId: agent.templateId,
      markets: results,
      alerts: alertsFired,
      simulated: results.some((r) => r.simulated),
      performance: performanceSince(previous, priceOf(results)),
    };
    return { result, conditions, failures, allFailed: results.every((r) => !r.ok) };
  }

  /**
   * Executes one queued run: takes it (only one worker can), keeps its lease alive while it
   * works, records the result and the agent's lastRun and performance, then hands firing
   * thresholds to the alerts. A run that is not 'queued' any more (done, or failed as
   * interrupted) is left alone, so a redelivered job changes nothing.
   */
  async function execute(runId: number): Promise<'done' | 'skipped'> {
    const started = await startRun(db, runId, now(), leaseUntil());
    if (!started) return 'skipped';
    const heartbeat = setInterval(
      () => {
        extendLeases(db, [runId], leaseUntil()).catch((err: unknown) => logger.warn({ err, runId }, 'could not extend a run lease'));
      },
      Math.max(500, (leaseSeconds * 1000) / 3),
    );
    try {
      const agent = started.agent;
      if (!agent) return 'done'; // deleted while queued: its runs went with it
      const tick = tickOf(started.scheduledFor ?? started.startTime);
      let outcome: Awaited<ReturnType<typeof evaluate>>;
      try {
        outcome = await evaluate(agent, runId, started.previousPrices, tick);
      } catch (err) {
        logger.warn({ err, runId, agentId: agent.id }, 'agent run failed');
        const error = err instanceof RunNotPossible ? err.message : RUN_FAILED_ERROR;
        await finishRun(db, runId, { status: 'failure', result: null, error, endTime: now(), performance: null });
        return 'done';
      }
      const { result, conditions, failures, allFailed } = outcome;
      // The user reads one sentence per failure; what the provider said is here, with the ids.
      if (failures.length > 0) logger.warn({ runId, agentId: agent.id, failures }, 'agent run could not read some of its data');
      const endTime = now();
      const error = allFailed ? result.markets.map((m) => (m.ok ? '' : `${m.symbol} (${m.source}): ${m.error}`)).join(' ') : null;
      // Alerts first: once the run shows as finished, what it alerted is stored too, so the
      // agent's next run (a run-now can follow at once) reads the alert states this run left.
      await raiseAlerts(agent, runId, conditions, started.activeAlerts);
      // False when the run was declared interrupted meanwhile; a later run takes over.
      await finishRun(db, runId, { status: allFailed ? 'failure' : 'success', result, error, endTime, performance: result.performance });
      return 'done';
    } finally {
      clearInterval(heartbeat);
    }
  }

  /**
   * Hands the alerts what changed: conditions firing now, and those that stopped firing while
   * marked as alerting (so the next event alerts again). Called with both channels off too,
   * so conditions still clear. Nothing changed (the usual run): no call at all.
   */
  async function raiseAlerts(agent: RunAgent, runId: number, all: Array<ThresholdCondition & { market: string }>, active: ReadonlySet<string>): Promise<void> {
    const conditions = all.filter((c) => c.firing || active.has(`${c.market}|${c.thresholdType}`));
    if (conditions.length === 0) return;
    const { email, inApp } = agent.config.notifications;
    try {
      await alerts.applyAlerts({
        userId: agent.ownerId,
        agentId: agent.id,
        agentName: agent.name,
        runId,
        emailEnabled: email,
        inAppEnabled: inApp,
        conditions: conditions.map((c) => ({
          market: c.market,
          thresholdType: c.thresholdType,
          firing: c.firing,
          // 'Alert' as in the wizard and Run History: a threshold the user set, not a template's signal.
          title: `${agent.name}: ${thresholdLabel(c.thresholdType)} alert on ${c.market}`,
          message: c.message,
        })),
      });
    } catch (err) {
      // The run is recorded; an alert that could not be stored is logged, never a failed run.
      logger.error({ err, runId, agentId: agent.id }, 'could not record alerts');
    }
  }

  return { execute };
}

export type RunExecutor = ReturnType<typeof createRunExecutor>;
