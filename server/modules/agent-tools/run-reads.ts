import type { TRunHistoryAnswer } from '../../../contracts/agents.ts';
import { ZRunResult, type TMarketResult, type TRunResult } from '../../../contracts/market.ts';
import type { AgentsService } from '../agents/agents.service.ts';
import { count, shortId, type Tool } from './tool-kit.ts';

/**
 * list_runs and get_run: the recorded runs of the caller's agent, with the numbers that decided
 * each signal, alert and condition, as Run History records them (never recomputed).
 */

type Agents = Pick<AgentsService, 'runs' | 'run'>;
type Run = TRunHistoryAnswer[number];

const resultOf = (run: Run): TRunResult | null => {
  const parsed = ZRunResult.nullable().safeParse(run.result ?? null);
  return parsed.success ? parsed.data : null;
};

/** A market's recorded outcome without its chart series (the model reads values, not candles). */
function marketFacts(market: TMarketResult, full: boolean) {
  if (!market.ok) return { symbol: market.symbol, source: market.source, ok: false, error: market.error, ...(market.candleTime ? { candleTime: market.candleTime } : {}) };
  const firedRules = market.rules.filter((r) => r.fired).map((r) => r.name);
  const firedConditions = (market.conditions ?? []).filter((c) => c.met).map((c) => c.title);
  if (!full) return { symbol: market.symbol, source: market.source, ok: true, price: market.price, candleTime: market.candleTime, firedRules, metConditions: firedConditions };
  const { chart, ...rest } = market;
  const last = chart.candles.at(-1);
  return { ...rest, latestCandle: last ?? null, candlesRecorded: chart.candles.length };
}

function runFacts(run: Run, full: boolean) {
  const result = resultOf(run);
  return {
    id: run.id,
    status: run.status,
    scheduledFor: run.scheduledFor,
    startTime: run.startTime,
    endTime: run.endTime,
    error: run.error,
    ...(result
      ? { performance: result.performance, simulated: result.simulated, alerts: result.alerts, markets: result.markets.map((m) => marketFacts(m, full)) }
      : { result: run.result === null ? null : 'unreadable (recorded by an earlier version)' }),
  };
}

export function listRunsTool(agents: Agents): Tool<'list_runs'> {
  return {
    argsText: ({ agentId, limit, status }) => `Agent ${shortId(agentId)}, the latest ${limit}${status ? ` ${status === 'success' ? 'successful' : 'failed'}` : ''} runs`,
    async run({ agentId, limit, status }, { owner }) {
      const runs = await agents.runs(owner, agentId, limit, status);
      const failed = runs.filter((r) => r.status === 'failure').length;
      return {
        data: { runs: runs.map((r) => runFacts(r, false)) },
        summary: failed > 0 && !status ? `${count(runs.length, 'run')}, ${failed} failed` : count(runs.length, status === 'failure' ? 'failed run' : 'run'),
      };
    },
  };
}

export function getRunTool(agents: Agents): Tool<'get_run'> {
  return {
    argsText: ({ agentId, runId }) => `Run ${runId} of agent ${shortId(agentId)}`,
    async run({ agentId, runId }, { owner }) {
      const run = await agents.run(owner, agentId, runId);
      const result = resultOf(run);
      const markets = result ? `${count(result.markets.length, 'market')}, ${count(result.alerts.length, 'alert')}` : 'no result';
      return { data: { run: runFacts(run, true) }, summary: `Run ${run.id}: ${run.status}, ${markets}` };
    },
  };
}
