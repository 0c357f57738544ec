import type { FastifyBaseLogger as Logger } from 'fastify';
import type { TAlertBriefChoice, TCryptoMonitorParameters } from '../../../contracts/agents.ts';
import {
  EXCHANGE_SOURCES,
  MARKET_FAILURES,
  TEMPLATE_TIMEFRAMES,
  type TCandleTimeframe,
  type TMarketFailure,
  type TMarketResult,
  type TMarketSource,
  type TRunAlert,
  type TRuleOutcome,
  type TRunResult,
  tooFewCandlesError,
} from '../../../contracts/market.ts';
import type { Db } from '../../db/client.ts';
import { MarketDataError } from '../../integrations/market/candle-source.ts';
import { OnChainError, type OnChainSource } from '../../integrations/onchain/onchain-source.ts';
import type { MarketData } from '../market/market-data.ts';
import { candlesNeeded, evaluateMarket, MIN_CANDLES, performanceSince, type OnChainInput, type ThresholdCondition } from './evaluate.ts';
import { planRun, RunNotPossible, type RunPlan } from './run-plan.ts';
import { extendLeases, failedRunsInARow, finishRun, startRun, type RunAgent } from './runtime.repo.ts';
import { isStale, staleSentence } from './freshness.ts';
import { NO_EVENTS, type EventPublisher } from '../../lib/live-events.ts';
import { FAILING_AFTER_RUNS, FAILING_CONDITION, failureReason } from '../../../contracts/agent-health.ts';

type NotifyTarget = { userId: string; agentId: string; agentName: string; runId: number; emailEnabled: boolean; inAppEnabled: boolean; channelIds: readonly string[] };

/** What the runtime needs from the notifications module (dedupe, in-app rows, emails). */
export type AlertSink = {
  applyAlerts(
    input: NotifyTarget & {
      conditions: Array<{ market: string; thresholdType: string; firing: boolean; value: number; limit: number; message: string }>;
      /** The agent's "Explain alerts" choice, and the run's recorded markets the brief reads (docs/decisions/0044). */
      brief: TAlertBriefChoice | null;
      recorded: Array<{ market: string; result: TMarketResult }>;
    },
  ): Promise<unknown>;
  /** The agent's health after a run: failing (with its reason and failed runs in a row) or not. */
  applyHealth(input: NotifyTarget & { failing: { reason: string; failedRuns: number } | null }): Promise<unknown>;
};

export type RunExecutorDeps = {
  db: Db;
  marketData: MarketData;
  onChain: OnChainSource | null;
  alerts: AlertSink;
  logger: Logger;
  now?: () => Date;
  leaseSeconds: number;
  /** Tells the owner's open consoles that the run finished (docs/decisions/0042). */
  events?: EventPublisher;
};

/** Stocks the scanner watches at most per run: a typo'd list of hundreds would hammer Yahoo. */
export const MAX_STOCK_SYMBOLS = 25;
const ON_CHAIN_LOOKBACK_MS = 60 * 60_000;
const ON_CHAIN_TIMEOUT_MS = 30_000;

type Market = { label: string; source: TMarketSource; symbol: string; timeframe: TCandleTimeframe };

const FAILING_KEY = `${FAILING_CONDITION.market}|${FAILING_CONDITION.thresholdType}`;

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

/**
 * A rule that could not decide says how many candles arrived, so '20 candles needed' reads
 * against what came. Market rules always carry their inputs in `values`; the on-chain rules'
 * are empty and their lack is not about candles.
 */
function withCandleCount(rule: TRuleOutcome, count: number): TRuleOutcome {
  if (rule.status !== 'insufficient data' || Object.keys(rule.values).length === 0) return rule;
  return { ...rule, detail: `${rule.detail}; ${count} candle${count === 1 ? '' : 's'} arrived` };
}

/** Who hears about the agent's run, and on which channels (its alert settings). */
const notifyTarget = (agent: RunAgent, runId: number): NotifyTarget => ({
  userId: agent.ownerId,
  agentId: agent.id,
  agentName: agent.name,
  runId,
  emailEnabled: agent.config.notifications.email,
  inAppEnabled: agent.config.notifications.inApp,
  channelIds: agent.config.notifications.channels ?? [],
});

/** A tick is the minute a run belongs to: runs of one minute share their candles. */
export const tickOf = (at: Date) => String(Math.floor(at.getTime() / 60_000));

export function createRunExecutor({ db, marketData, onChain, alerts, logger, now = () => new Date(), leaseSeconds, events = NO_EVENTS }: RunExecutorDeps) {
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
          const count = series.candles.length;
          if (count < MIN_CANDLES) {
            const failure = count === 0 ? 'no-data' : 'too-few-candles';
            failures.push({ market: m.label, failure, cause: { detail: `${m.source} returned ${count} candles for ${m.symbol}` } });
            return { ok: false, symbol: m.symbol, source: m.source, simulated: series.simulated, failure, error: tooFewCandlesError(count, MIN_CANDLES) };
          }
          const latest = series.candles.at(-1)!;
          if (isStale(m.source, m.timeframe, latest.time, now())) {
            // A frozen feed is not the market now: no rule or alert reads it.
            const candleTime = new Date(latest.time).toISOString();
            failures.push({ market: m.label, failure: 'stale', cause: { detail: `latest ${m.timeframe} candle of ${m.symbol} opened at ${candleTime}` } });
            return { ok: false, symbol: m.symbol, source: m.source, simulated: series.simulated, failure: 'stale', error: MARKET_FAILURES.stale, candleTime };
          }
          const evaluation = evaluateMarket({ plan, market: m.label, candles: series.candles, onChain: onChainInput });
          conditions.push(...evaluation.thresholds.map((t) => ({ ...t, market: m.label })));
          return {
            ok: true,
            symbol: m.symbol,
            source: m.source,
            simulated: series.simulated,
            timeframe: m.timeframe,
            price: latest.close,
            candleTime: new Date(latest.time).toISOString(),
            indicators: evaluation.indicators,
            rules: evaluation.rules.map((rule) => withCandleCount(rule, count)),
            chart: evaluation.chart,
            recent: evaluation.recent,
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
    const allFailed = results.every((r) => !r.ok);
    const recorded = markets.map((m, i) => ({ market: m.label, result: results[i]! }));
    return { result, conditions, recorded, failures, allFailed, error: allFailed ? runError(results, agent.config.schedule.timeZone) : null };
  }

  /**
   * Why a run with no market read failed: stale markets as 'no fresh data from Kraken since
   * 15:00' (one sentence per source), the others as '{symbol} ({source}): {sentence}'.
   */
  function runError(results: readonly TMarketResult[], timeZone: string): string {
    const staleSince = new Map<TMarketSource, number>();
    const others: string[] = [];
    for (const m of results) {
      if (m.ok) continue;
      if (m.failure === 'stale' && m.candleTime) staleSince.set(m.source, Math.max(staleSince.get(m.source) ?? 0, Date.parse(m.candleTime)));
      else others.push(`${m.symbol} (${m.source}): ${m.error}`);
    }
    const stale = [...staleSince].map(([source, latest]) => staleSentence(source, latest, now(), timeZone));
    return [...stale.map((sentence, i) => (i === 0 && others.length === 0 ? sentence : `${sentence}.`)), ...others].join(' ');
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
        if (await finishRun(db, runId, { status: 'failure', result: null, error, endTime: now(), performance: null })) {
          await reportHealth(agent, runId, error, started.activeAlerts);
          finished(agent, runId);
        }
        return 'done';
      }
      const { result, conditions, recorded, failures, allFailed, error } = outcome;
      // The user reads one sentence per failure; what the provider said is here, with the ids.
      if (failures.length > 0) logger.warn({ runId, agentId: agent.id, failures }, 'agent run could not read some of its data');
      const endTime = now();
      // Alerts first: once the run shows as finished, what it alerted is stored too, so the
      // agent's next run (a run-now can follow at once) reads the alert states this run left.
      await raiseAlerts(agent, runId, conditions, recorded, started.activeAlerts);
      // False when the run was declared interrupted meanwhile; a later run takes over.
      if (await finishRun(db, runId, { status: allFailed ? 'failure' : 'success', result, error, endTime, performance: result.performance })) {
        await reportHealth(agent, runId, error, started.activeAlerts);
        finished(agent, runId);
      }
      return 'done';
    } finally {
      clearInterval(heartbeat);
    }
  }

  /** The run and the agent's last run and health changed: the owner's consoles refetch them. */
  function finished(agent: RunAgent, runId: number): void {
    events.publish(agent.ownerId, { type: 'run', action: 'finished', agentId: agent.id, runId });
    events.publish(agent.ownerId, { type: 'agent', agentId: agent.id });
  }

  /**
   * Tells the notifications how the agent is after this run (`error` null: it succeeded). The
   * usual run changes nothing and costs nothing: a success while not marked failing, and a
   * failure while already marked, make no call; a failure counts the failed runs in a row.
   */
  async function reportHealth(agent: RunAgent, runId: number, error: string | null, active: ReadonlySet<string>): Promise<void> {
    const marked = active.has(FAILING_KEY);
    if (error === null ? !marked : marked) return;
    try {
      const failedRuns = error === null ? 0 : await failedRunsInARow(db, agent.id, FAILING_AFTER_RUNS);
      if (error !== null && failedRuns < FAILING_AFTER_RUNS) return;
      await alerts.applyHealth({ ...notifyTarget(agent, runId), failing: error === null ? null : { reason: failureReason(error), failedRuns } });
    } catch (err) {
      // The run is recorded; a notification that could not be stored is logged, never a failed run.
      logger.error({ err, runId, agentId: agent.id }, 'could not record the agent health');
    }
  }

  /**
   * Hands the alerts what changed: conditions firing now, and those that stopped firing while
   * marked as alerting (so the next event alerts again). Called with both channels off too,
   * so conditions still clear. Nothing changed (the usual run): no call at all.
   */
  async function raiseAlerts(
    agent: RunAgent,
    runId: number,
    all: Array<ThresholdCondition & { market: string }>,
    recorded: Array<{ market: string; result: TMarketResult }>,
    active: ReadonlySet<string>,
  ): Promise<void> {
    const conditions = all.filter((c) => c.firing || active.has(`${c.market}|${c.thresholdType}`));
    if (conditions.length === 0) return;
    try {
      await alerts.applyAlerts({
        ...notifyTarget(agent, runId),
        conditions: conditions.map((c) => ({ market: c.market, thresholdType: c.thresholdType, firing: c.firing, value: c.value, limit: c.limit, message: c.message })),
        brief: agent.config.notifications.brief ?? null,
        recorded,
      });
    } catch (err) {
      // The run is recorded; an alert that could not be stored is logged, never a failed run.
      logger.error({ err, runId, agentId: agent.id }, 'could not record alerts');
    }
  }

  return { execute };
}

export type RunExecutor = ReturnType<typeof createRunExecutor>;
