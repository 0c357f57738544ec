import { configDifferences } from '../../../contracts/agent-config-text.ts';
import { findTemplate, type TAgentConfig } from '../../../contracts/agents.ts';
import type { TBacktestResult } from '../../../contracts/backtest.ts';
import { MarketDataError } from '../../integrations/market/candle-source.ts';
import { AppError } from '../../lib/errors.ts';
import type { AgentsService, Caller } from '../agents/agents.service.ts';
import { validateAgentConfig } from '../agents/validate-config.ts';
import type { BacktestService } from '../backtest/backtest.service.ts';
import type { ProposalsService } from '../proposals/proposals.service.ts';
import { backtestForModel, backtestSummary, runHistoryTest } from './history-test.ts';
import { count, shortId, ToolRefusal, type Tool, type ToolContext } from './tool-kit.ts';

/**
 * propose_agent and propose_change: a proposal, checked with the wizard's own validation (so the
 * model hears the field and the rule and can fix it), tested on history at once, and recorded
 * pending. Nothing else is written: the owner decides (proposals.service.ts).
 */

export type ProposalToolsDeps = {
  agents: Pick<AgentsService, 'get'>;
  backtests: Pick<BacktestService, 'forAgent' | 'forConfig'>;
  proposals: Pick<ProposalsService, 'record'>;
};

const UNDECIDED = 'Nothing was created or changed: the user sees this proposal with its test on history and decides.';

/** The configuration's problems as the wizard names them, on the tool's own field (`config.…`). */
function refuseInvalid(templateId: string, config: TAgentConfig): void {
  const problems = validateAgentConfig(templateId, config);
  if (problems.length === 0) return;
  const field = (path: string) => (path === 'templateId' ? path : `config.${path}`);
  throw new ToolRefusal('invalid', `The arguments were refused: ${problems.map((p) => `${field(p.path)}: ${p.message}`).join('; ')}.`);
}

/** The proposal's test on history, or why it could not run (a refusal of the test is not one of the proposal). */
async function testProposal(deps: ProposalToolsDeps, owner: Caller, templateId: string, config: TAgentConfig, signal: AbortSignal): Promise<{ backtest: TBacktestResult | null; backtestError: string | null }> {
  try {
    return { backtest: await runHistoryTest(deps.backtests, owner, { templateId, config }, undefined, signal), backtestError: null };
  } catch (err) {
    if (signal.aborted) throw err;
    if (err instanceof AppError) {
      const details = err.details?.length ? `: ${err.details.map((d) => `${d.path}: ${d.message}`).join('; ')}` : '';
      return { backtest: null, backtestError: `${err.message}${details}` };
    }
    if (err instanceof MarketDataError) return { backtest: null, backtestError: err.message };
    throw err;
  }
}

const answerOf = (proposal: { id: string }, tested: { backtest: TBacktestResult | null; backtestError: string | null }, extra: Record<string, unknown>) => ({
  proposalId: proposal.id,
  status: 'pending',
  note: UNDECIDED,
  ...extra,
  testOnHistory: tested.backtest ? backtestForModel(tested.backtest) : { error: tested.backtestError },
});
const testedWords = (tested: { backtest: TBacktestResult | null }) => (tested.backtest ? backtestSummary(tested.backtest) : 'not tested on history');
const origin = ({ caller }: ToolContext) => ({ userId: caller.user.id, source: caller.source, sourceName: caller.sourceName, conversationId: caller.conversationId });

export function proposeAgentTool(deps: ProposalToolsDeps): Tool<'propose_agent'> {
  return {
    argsText: ({ templateId, name }) => `A new ${findTemplate(templateId)?.name ?? templateId} named “${name}”`,
    async run({ templateId, name, config, reason }, context) {
      refuseInvalid(templateId, config);
      const tested = await testProposal(deps, context.owner, templateId, config, context.signal);
      // Past the time limit or after Stop the model is told so: nothing may be recorded then.
      context.signal.throwIfAborted();
      const proposal = await deps.proposals.record({ ...origin(context), kind: 'create', agentId: null, templateId, name, config, reason, baseName: null, baseConfig: null, ...tested });
      return {
        data: answerOf(proposal, tested, { configuration: proposal.configText }),
        summary: `Proposed “${name}” (${findTemplate(templateId)?.name ?? templateId}); ${testedWords(tested)}`,
        proposalId: proposal.id,
      };
    },
  };
}

export function proposeChangeTool(deps: ProposalToolsDeps): Tool<'propose_change'> {
  return {
    argsText: ({ agentId, name, config }) => `Agent ${shortId(agentId)}: ${[name !== undefined ? 'a new name' : null, config !== undefined ? 'a new configuration' : null].filter(Boolean).join(' and ')}`,
    async run({ agentId, name, config, reason }, context) {
      const agent = await deps.agents.get(context.owner, agentId);
      const proposed = { name: name ?? agent.name, templateId: agent.templateId, config: config ?? agent.config };
      if (config) refuseInvalid(agent.templateId, config);
      const differences = configDifferences(agent, proposed);
      const tested = await testProposal(deps, context.owner, agent.templateId, proposed.config, context.signal);
      context.signal.throwIfAborted();
      const proposal = await deps.proposals.record({
        ...origin(context),
        kind: 'change',
        agentId: agent.id,
        templateId: agent.templateId,
        name: proposed.name,
        config: proposed.config,
        reason,
        baseName: agent.name,
        baseConfig: agent.config,
        ...tested,
      });
      return {
        data: answerOf(proposal, tested, { differences }),
        summary: `Proposed a change to “${agent.name}”: ${count(differences.length, 'difference')}; ${testedWords(tested)}`,
        argsText: `“${agent.name}”: ${[name !== undefined ? 'a new name' : null, config !== undefined ? 'a new configuration' : null].filter(Boolean).join(' and ')}`,
        proposalId: proposal.id,
      };
    },
  };
}
