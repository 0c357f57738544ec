import type { FastifyBaseLogger as Logger } from 'fastify';
import type { TAlertBriefChoice, TCryptoMonitorParameters } from '../../../contracts/agents.ts';
import { EXCHANGE_SOURCES, TEMPLATE_TIMEFRAMES } from '../../../contracts/agent-markets.ts';
import {
  MARKET_FAILURES,
  type TCandleTimeframe,
  type TCandle,
  type TMarketFailure,
  type TMarketResult,
  type TMarketSource,
  type TRunAlert,
  type TRuleOutcome,
  type TRunResult,
  tooFewCandlesError,
} from '../../../contracts/market.ts';
import type { Db } from '../../db/client.ts';
import { WATCHLIST_MAX, watchedMarketLabel } from '../../../contracts/watchlist.ts';
import { MarketDataError } from '../../integrations/market/candle-source.ts';
import { OnChainError, type OnChainSource } from '../../integrations/onchain/onchain-source.ts';
import type { CandleSeries, MarketData } from '../market/market-data.ts';
import {
  candlesNeeded,
  evaluateMarketSignals,
  MIN_CANDLES,
  onChainOutcomes,
  performanceSince,
  type MarketEvaluation,
  type OnChainInput,
  type ThresholdCondition,
} from './evaluate.ts';
import { planRun, RunNotPossible, type RunPlan } from './run-plan.ts';
import { conditionCandles, decideConditions, preparedConditions, type ConditionNotice } from './run-conditions.ts';
import type { TNotifiedCondition } from '../../../contracts/condition-outcomes.ts';
import { extendLease, failedRunsInARow, finishRun, finishRuns, releaseLease, startRuns, withConditions, type RunAgent, type RunOutcome, type StartedRun } from './runtime.repo.ts';
import { isStale, staleSentence } from './freshness.ts';
import { zoneOr } from '../../../contracts/time-zone.ts';
import { NO_EVENTS, type EventPublisher } from '../../lib/live-events.ts';
import { FAILING_AFTER_RUNS, FAILING_CONDITION, failureReason } from '../../../contracts/agent-health.ts';
import { agentRunStartLag, agentRuns } from '../../lib/telemetry/metrics.ts';
import { inSpan } from '../../lib/telemetry/tracing.ts';

type NotifyTarget = { userId: string; agentId: string; agentName: string; runId: number; emailEnabled: boolean; inAppEnabled: boolean; channelIds: readonly string[] };

type AlertsInput = NotifyTarget & {
  conditions: Array<{ market: string; thresholdType: string; firing: boolean; value: number; limit: number; message: string }>;
  /** The agent's "Explain alerts" choice, and the run's recorded markets the brief reads (docs/decisions/0044). */
  brief: TAlertBriefChoice | null;
  recorded: Array<{ market: string; result: TMarketResult }>;
  /** The owner's conditions the run notifies, and their trigger state after it (docs/decisions/0073). */
  conditionsMet: TNotifiedCondition[];
  conditionStates: Array<{ agentId: string; conditionId: string; market: string; lastNotifiedAt: Date; lastNotifiedCandle: number; disarm: boolean }>;
};

/** What the runtime needs from the notifications module (dedupe, in-app rows, emails). */
export type AlertSink = {
  /** The alerts of a batch's runs, stored in one transaction (an agent's runs decided in order); never throws for one run's trouble. */
  applyAlertsMany(inputs: readonly AlertsInput[]): Promise<ReadonlyArray<{ held: boolean; repeated: ReadonlyArray<{ conditionId: string; market: string }> }>>;
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
  if (plan.templateType === 'custom') {
    // Each market of the watchlist as its template names it: stocks from Yahoo, pairs on their exchange.
    return plan.watchlist.slice(0, WATCHLIST_MAX).map((market) => ({
      label: watchedMarketLabel(market),
      source: market.kind === 'stock' ? 'yahoo' : market.exchange,
      symbol: market.symbol,
      timeframe,
    }));
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

  // Runs with the same plan on the same candles (the candle cache hands every caller of a tick
  // the same array) share one evaluation: indicators, rules, alerts and chart computed once per
  // market and plan, however many agents of a batch watch it, and one market result object, so
  // a batch's results are recorded with each market's JSON sent once. Gone with the candles.
  type Shared = { evaluation: MarketEvaluation; results: Map<string, TMarketResult & { ok: true }> };
  const evaluations = new WeakMap<readonly TCandle[], Map<string, Shared>>();
  function marketResultOf(plan: RunPlan, m: Market, series: CandleSeries, onChainRules: readonly TRuleOutcome[]) {
    const { candles } = series;
    let byPlan = evaluations.get(candles);
    if (!byPlan) {
      byPlan = new Map();
      evaluations.set(candles, byPlan);
    }
    const key = `${m.label}\u0000${JSON.stringify(plan)}`;
    let shared = byPlan.get(key);
    if (!shared) {
      shared = { evaluation: evaluateMarketSignals(plan, m.label, candles), results: new Map() };
      byPlan.set(key, shared);
    }
    const { evaluation } = shared;
    const onChainKey = JSON.stringify(onChainRules);
    let result = shared.results.get(onChainKey);
    if (!result) {
      const latest = candles.at(-1)!;
      result = {
        ok: true,
        symbol: m.symbol,
        source: m.source,
        simulated: series.simulated,
        timeframe: m.timeframe,
        price: latest.close,
        candleTime: new Date(latest.time).toISOString(),
        indicators: evaluation.indicators,
        rules: [...evaluation.rules, ...onChainRules].map((rule) => withCandleCount(rule, candles.length)),
        chart: evaluation.chart,
        recent: evaluation.recent,
      };
      shared.results.set(onChainKey, result);
    }
    return { result, thresholds: evaluation.thresholds };
  }

  async function evaluate(agent: RunAgent, runId: number, previous: ReadonlyMap<string, number>, tick: string, stateOf: StartedRun['conditionState']) {
    const plan = planRun(agent.templateId, agent.config);
    const markets = marketsOf(plan, marketData);
    if (markets.length === 0) throw new RunNotPossible('No market to watch: check the symbols or exchanges.');
    const onChainInput = plan.templateType === 'crypto' ? await onChainFor(plan.parameters, tick) : ({ configured: false } as const);
    const agentTimeframe = TEMPLATE_TIMEFRAMES[plan.parameters.timeframe];
    // Every timeframe the conditions read, with the warm-up each needs (none without conditions).
    const conditionNeeds = plan.conditions.length > 0 ? conditionCandles(plan.conditions, agentTimeframe) : new Map<TCandleTimeframe, number>();
    const limit = Math.max(candlesNeeded(plan), conditionNeeds.get(agentTimeframe) ?? 0);
    const onChainRules = onChainOutcomes(plan, onChainInput);
    const notices: ConditionNotice[] = [];

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
          const shared = marketResultOf(plan, m, series, onChainRules);
          conditions.push(...shared.thresholds.map((t) => ({ ...t, market: m.label })));
          if (plan.conditions.length === 0) return shared.result;
          // The owner's conditions are this agent's own (their trigger state is): its own copy of the shared result.
          const decided = await marketConditions(plan, agentTimeframe, conditionNeeds, m, series.candles, tick, agent.id, stateOf);
          notices.push(...decided.notified);
          return withConditions(shared.result, decided.outcomes);
        } catch (err) {
          if (!(err instanceof MarketDataError)) logger.error({ err, runId, agentId: agent.id, market: m.label }, 'market evaluation failed');
          const failure = err instanceof MarketDataError ? err.failure : 'internal';
          failures.push({ market: m.label, failure, cause: causeOf(err) });
          return { ok: false, symbol: m.symbol, source: m.source, simulated: false, failure, error: MARKET_FAILURES[failure] };
        }
      }),
    );

    // Keyed as the next run looks them up (its previous prices).
    const prices = new Map(results.flatMap((r) => (r.ok ? [[`${r.source}:${r.symbol}`, r.price] as const] : [])));
    const alertsFired: TRunAlert[] = conditions
      .filter((c) => c.firing)
      .map((c) => ({ market: c.market, threshold: c.thresholdType, value: c.value, limit: c.limit, message: c.message }));
    const result: TRunResult = {
      templateId: agent.templateId,
      markets: results,
      alerts: alertsFired,
      simulated: results.some((r) => r.simulated),
      performance: performanceSince(previous, prices),
    };
    const allFailed = results.every((r) => !r.ok);
    const recorded = markets.map((m, i) => ({ market: m.label, result: results[i]! }));
    return { result, prices, conditions, notices, recorded, failures, allFailed, error: allFailed ? runError(results, zoneOr(agent.ownerTimeZone)) : null };
  }

  /**
   * The conditions on one market: the longer timeframes' candles read through the candle cache
   * (shared by the tick's agents), the conditions prepared once per candles, and each decided with
   * its stored trigger state. A longer timeframe that cannot be read leaves the clauses reading it
   * undecided ('insufficient data'), never the run failed.
   */
  async function marketConditions(
    plan: RunPlan,
    agentTimeframe: TCandleTimeframe,
    needs: ReadonlyMap<TCandleTimeframe, number>,
    m: Market,
    candles: readonly TCandle[],
    tick: string,
    agentId: string,
    stateOf: StartedRun['conditionState'],
  ) {
    const series = new Map<TCandleTimeframe, readonly TCandle[]>([[agentTimeframe, candles]]);
    await Promise.all(
      [...needs].map(async ([timeframe, limit]) => {
        if (timeframe === agentTimeframe) return;
        try {
          series.set(timeframe, (await marketData.getCandles({ source: m.source, symbol: m.symbol, timeframe, limit }, tick)).candles);
        } catch (err) {
          logger.warn({ err, agentId, market: m.label, timeframe }, 'a timeframe the conditions read could not be read');
          series.set(timeframe, []);
        }
      }),
    );
    const prepared = preparedConditions(plan.conditions, agentTimeframe, series);
    return decideConditions({ conditions: plan.conditions, agentTimeframe, prepared, market: m.label, stateOf, now: now().getTime() });
  }

  /**
   * Why a run with no market read failed: stale markets as 'no fresh data from Kraken since
   * 15:00 UTC' (one sentence per source, the time in the owner's zone, named: the sentence is
   * stored and shown, emailed and sent as it is), the others as '{symbol} ({source}): {sentence}'.
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

  type Evaluated =
    | { run: StartedRun & { agent: RunAgent }; ok: true; outcome: Awaited<ReturnType<typeof evaluate>> }
    | { run: StartedRun & { agent: RunAgent }; ok: false; error: string };

  /** One run's evaluation; never throws: an agent whose run fails fails alone. */
  async function evaluateRun(run: StartedRun & { agent: RunAgent }): Promise<Evaluated> {
    try {
      const tick = tickOf(run.scheduledFor ?? run.startTime);
      return { run, ok: true, outcome: await evaluate(run.agent, run.id, run.previousPrices, tick, run.conditionState) };
    } catch (err) {
      logger.warn({ err, runId: run.id, agentId: run.agent.id }, 'agent run failed');
      return { run, ok: false, error: err instanceof RunNotPossible ? err.message : RUN_FAILED_ERROR };
    }
  }

  /**
   * Executes a batch of queued runs (docs/decisions/0052): takes them in one statement (only one
   * worker can take a run; those no longer 'queued', done or failed as interrupted, are left
   * alone, so a redelivered job changes nothing), keeps their leases alive in one statement while
   * it works, evaluates each (runs on the same candles share the evaluation; one agent's failure
   * fails its run alone), hands firing thresholds to the alerts, then records every outcome and
   * the agents' lastRun and performance in one statement. Answers how many runs it took.
   */
  function executeBatch(runIds: readonly number[]): Promise<number> {
    // A job's span (docs/decisions/0091): its statements, market reads and alerts nest under it.
    return inSpan('agent runs', { root: true, attributes: { 'agent.run.ids': runIds.map(String) } }, () => executeBatchOnce(runIds));
  }

  async function executeBatchOnce(runIds: readonly number[]): Promise<number> {
    const started = await startRuns(db, runIds, now(), leaseUntil());
    if (started.length === 0) return 0;
    for (const run of started) if (run.scheduledFor) agentRunStartLag.observe(Math.max(0, run.startTime.getTime() - run.scheduledFor.getTime()) / 1000);
    // One lease for the batch (run_leases), created as its runs were taken.
    const { leaseId } = started[0]!;
    const heartbeat = setInterval(
      () => {
        extendLease(db, leaseId, leaseUntil()).catch((err: unknown) => logger.warn({ err, runs: started.map((r) => r.id) }, 'could not extend run leases'));
      },
      Math.max(500, (leaseSeconds * 1000) / 3),
    );
    try {
      // Deleted while queued: their runs went with them.
      const runs = started.filter((r): r is StartedRun & { agent: RunAgent } => r.agent !== null);
      const evaluated = await Promise.all(runs.map(evaluateRun));
      // Alerts first: once the run shows as finished, what it alerted is stored too, so the
      // agent's next run (a run-now can follow at once) reads the alert states this run left.
      const alerting: AlertsInput[] = [];
      const notified: ConditionNotice[][] = [];
      for (const e of evaluated) {
        if (!e.ok) continue;
        // The user reads one sentence per failure; what the provider said is here, with the ids.
        if (e.outcome.failures.length > 0) logger.warn({ runId: e.run.id, agentId: e.run.agent.id, failures: e.outcome.failures }, 'agent run could not read some of its data');
        const input = alertsInput(e.run.agent, e.run.id, e.outcome.conditions, e.outcome.recorded, e.run.activeAlerts, e.outcome.notices);
        if (input) {
          alerting.push(input);
          notified.push(e.outcome.notices);
        }
      }
      if (alerting.length > 0) {
        try {
          const applied = await alerts.applyAlertsMany(alerting);
          // In Run History: conditions another run of the agent notified for this candle first are
          // 'repeat'; those the agent's hourly cap held back, 'held'.
          applied.forEach((a, i) => {
            const repeated = new Set(a.repeated.map((r) => `${r.conditionId}|${r.market}`));
            for (const { notice, outcome } of notified[i]!) {
              if (repeated.has(`${notice.conditionId}|${notice.market}`)) outcome.delivery = 'repeat';
              else if (a.held) outcome.delivery = 'held';
            }
          });
        } catch (err) {
          // The runs are recorded; alerts that could not be stored are logged, never failed runs.
          logger.error({ err, runs: alerting.map((a) => a.runId) }, 'could not record alerts');
        }
      }
      const endTime = now();
      const outcomes: RunOutcome[] = evaluated.map((e) =>
        e.ok
          ? e.outcome.allFailed
            ? { runId: e.run.id, status: 'failure', result: e.outcome.result, prices: null, error: e.outcome.error, endTime, performance: null }
            : { runId: e.run.id, status: 'success', result: e.outcome.result, prices: Object.fromEntries(e.outcome.prices), error: e.outcome.error, endTime, performance: e.outcome.result.performance }
          : { runId: e.run.id, status: 'failure', result: null, prices: null, error: e.error, endTime, performance: null },
      );
      // A run declared interrupted meanwhile is not in `finished`; a later run takes over.
      const finished = await record(outcomes);
      const done = evaluated.filter((e) => finished.has(e.run.id));
      for (const outcome of outcomes) if (finished.has(outcome.runId)) agentRuns.inc({ status: outcome.status });
      await reportHealth(done.map((e) => ({ agent: e.run.agent, runId: e.run.id, error: e.ok ? e.outcome.error : e.error, active: e.run.activeAlerts })));
      for (const e of done) finishedRun(e.run.agent, e.run.id);
      return started.length;
    } finally {
      clearInterval(heartbeat);
      // Kept while a run is still running (its record refused): it lapses and the sweep fails the run.
      await releaseLease(db, leaseId).catch((err: unknown) => logger.warn({ err, leaseId }, 'could not release a run lease; it lapses'));
    }
  }

  /**
   * The batch's outcomes in one statement; should the database refuse it, run by run, so one
   * outcome it cannot store (recorded then as a failure with our sentence) never leaves the
   * batch's other runs unrecorded.
   */
  async function record(outcomes: RunOutcome[]): Promise<Set<number>> {
    try {
      return await finishRuns(db, outcomes);
    } catch (err) {
      logger.error({ err, runs: outcomes.map((o) => o.runId) }, 'could not record runs at once; recording them one by one');
    }
    const finished = new Set<number>();
    for (const outcome of outcomes) {
      // A batch of one was refused as it is already.
      let stored = outcomes.length > 1 ? await tryFinish(outcome) : 'refused';
      if (stored === 'refused') stored = await tryFinish({ ...outcome, status: 'failure', result: null, prices: null, error: RUN_FAILED_ERROR, performance: null });
      // Still refused: left running, its lease runs out and it is failed as interrupted.
      if (stored === 'finished') finished.add(outcome.runId);
    }
    return finished;
  }

  async function tryFinish(outcome: RunOutcome): Promise<'finished' | 'not ours' | 'refused'> {
    try {
      return (await finishRun(db, outcome.runId, outcome)) ? 'finished' : 'not ours';
    } catch (err) {
      logger.error({ err, runId: outcome.runId, status: outcome.status }, 'could not record a run');
      return 'refused';
    }
  }

  /** Executes one queued run as a batch of one; 'skipped' when it was not queued. */
  async function execute(runId: number): Promise<'done' | 'skipped'> {
    return (await executeBatch([runId])) > 0 ? 'done' : 'skipped';
  }

  /** The run and the agent's last run and health changed: the owner's consoles refetch them. */
  function finishedRun(agent: RunAgent, runId: number): void {
    events.publish(agent.ownerId, { type: 'run', action: 'finished', agentId: agent.id, runId });
    events.publish(agent.ownerId, { type: 'agent', agentId: agent.id });
  }

  /**
   * Tells the notifications how each agent is after its run (`error` null: it succeeded). The
   * usual run changes nothing and costs nothing: a success while not marked failing, and a
   * failure while already marked, make no call; the batch's other failures count their failed
   * runs in a row in one statement, and only an agent whose count reaches the threshold is told.
   */
  async function reportHealth(runs: ReadonlyArray<{ agent: RunAgent; runId: number; error: string | null; active: ReadonlySet<string> }>): Promise<void> {
    const changing = runs.filter((r) => (r.error === null ? r.active.has(FAILING_KEY) : !r.active.has(FAILING_KEY)));
    if (changing.length === 0) return;
    let failedRuns = new Map<string, number>();
    try {
      failedRuns = await failedRunsInARow(
        db,
        changing.filter((r) => r.error !== null).map((r) => r.agent.id),
        FAILING_AFTER_RUNS,
      );
    } catch (err) {
      // The runs are recorded; health that could not be read is logged, never a failed run.
      logger.error({ err, runs: changing.map((r) => r.runId) }, 'could not count failed runs');
    }
    for (const { agent, runId, error } of changing) {
      const failed = failedRuns.get(agent.id) ?? 0;
      if (error !== null && failed < FAILING_AFTER_RUNS) continue;
      try {
        await alerts.applyHealth({ ...notifyTarget(agent, runId), failing: error === null ? null : { reason: failureReason(error), failedRuns: failed } });
      } catch (err) {
        // The run is recorded; a notification that could not be stored is logged, never a failed run.
        logger.error({ err, runId, agentId: agent.id }, 'could not record the agent health');
      }
    }
  }

  /**
   * What the alerts are told after a run: conditions firing now, and those that stopped firing
   * while marked as alerting (so the next event alerts again); null when that changes nothing.
   * Asked with both channels off too, so conditions still clear. The usual run (nothing firing,
   * nothing marked) and a condition that keeps firing while marked make no call at all.
   */
  function alertsInput(
    agent: RunAgent,
    runId: number,
    all: Array<ThresholdCondition & { market: string }>,
    recorded: Array<{ market: string; result: TMarketResult }>,
    active: ReadonlySet<string>,
    notices: readonly ConditionNotice[],
  ): AlertsInput | null {
    const conditions = all.filter((c) => c.firing || active.has(`${c.market}|${c.thresholdType}`));
    // Every (market, type) still firing and already marked (read when the run was taken), and no
    // condition of the owner's to notify: the notifications would change nothing.
    const firing = new Set(conditions.filter((c) => c.firing).map((c) => `${c.market}|${c.thresholdType}`));
    if (notices.length === 0 && conditions.every((c) => firing.has(`${c.market}|${c.thresholdType}`) && active.has(`${c.market}|${c.thresholdType}`))) return null;
    return {
      conditionsMet: notices.map((n) => n.notice),
      conditionStates: notices.map((n) => ({
        agentId: agent.id,
        conditionId: n.notice.conditionId,
        market: n.notice.market,
        lastNotifiedAt: new Date(n.state.lastNotifiedAt!),
        lastNotifiedCandle: n.state.lastNotifiedCandle!,
        disarm: n.disarm,
      })),
      ...notifyTarget(agent, runId),
      conditions: conditions.map((c) => ({ market: c.market, thresholdType: c.thresholdType, firing: c.firing, value: c.value, limit: c.limit, message: c.message })),
      brief: agent.config.notifications.brief ?? null,
      recorded,
    };
  }

  return { execute, executeBatch };
}

export type RunExecutor = ReturnType<typeof createRunExecutor>;
