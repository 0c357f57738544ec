import { findTemplate } from '../../../contracts/agents.ts';
import type { TBacktestMarket, TBacktestResult } from '../../../contracts/backtest.ts';
import type { BacktestService } from '../backtest/backtest.service.ts';
import type { Caller } from '../agents/agents.service.ts';
import { count, shortId, type Tool } from './tool-kit.ts';

/**
 * test_on_history: Test on history's own service (its checks, rate, concurrency and history
 * cache), for an agent's saved configuration or for a configuration not saved yet. The person
 * gets the whole result (the step's detail); the model a summary of it: per market and over all,
 * how often each rule, alert and condition fired and what followed, without chart series or the
 * list of firings.
 */

type Backtests = Pick<BacktestService, 'forAgent' | 'forConfig'>;

/** The result for the model: its rows and notification counts, per market and over all. */
export function backtestForModel(result: TBacktestResult) {
  const market = (m: TBacktestMarket) =>
    m.ok
      ? { market: m.label, ok: true, timeframe: m.timeframe, from: m.from, to: m.to, candlesEvaluated: m.evaluated, history: m.history, rows: m.rows, firingsListed: m.firings.length + m.firingsOmitted }
      : { market: m.label, ok: false, error: m.error };
  return {
    templateId: result.templateId,
    candlesPerMarket: result.candles,
    simulated: result.simulated,
    markets: result.markets.map(market),
    overall: result.summary,
    notifications: result.notifications,
    notTested: result.notTested,
  };
}

/** '3 markets, 12 firings, 4 notifications over 21 days'. */
export function backtestSummary(result: TBacktestResult): string {
  const fired = result.summary.reduce((n, row) => n + row.fired, 0);
  const failed = result.markets.filter((m) => !m.ok).length;
  const notes = result.notifications;
  return `${count(result.markets.length, 'market')}${failed > 0 ? ` (${failed} could not be read)` : ''}, ${count(fired, 'firing')}, ${count(notes.total, 'notification')} over ${count(notes.days, 'day')}${result.simulated ? ' (simulated data)' : ''}`;
}

/** Runs a test for the caller: `agentId`'s saved configuration, or a template and configuration. */
export async function runHistoryTest(
  backtests: Backtests,
  owner: Caller,
  target: { agentId: string } | { templateId: string; config: unknown },
  candles: number | undefined,
  signal: AbortSignal,
): Promise<TBacktestResult> {
  const job =
    'agentId' in target
      ? await backtests.forAgent(owner, target.agentId, candles === undefined ? {} : { candles })
      : await backtests.forConfig(owner, { templateId: target.templateId, config: target.config, ...(candles === undefined ? {} : { candles }) });
  return job.run(signal, () => {});
}

export function testOnHistoryTool(backtests: Backtests): Tool<'test_on_history'> {
  return {
    argsText: ({ agentId, proposal, candles }) =>
      `${agentId ? `Agent ${shortId(agentId)}` : `A ${findTemplate(proposal!.templateId)?.name ?? proposal!.templateId} not saved yet`}, ${candles ?? 'the default'} candles per market`,
    async run({ agentId, proposal, candles }, { owner, signal }) {
      const result = await runHistoryTest(backtests, owner, agentId ? { agentId } : { templateId: proposal!.templateId, config: proposal!.config }, candles, signal);
      return { data: backtestForModel(result), summary: backtestSummary(result), detail: result };
    },
  };
}
