import { configDifferences, configLines, configLineText } from '../../../contracts/agent-config-text.ts';
import type { TAgentConfig } from '../../../contracts/agents.ts';
import type { TProposal, TProposalStatus } from '../../../contracts/assistant-tools.ts';
import type { Db } from '../../db/client.ts';
import { AppError } from '../../lib/errors.ts';
import { NO_EVENTS, type EventPublisher } from '../../lib/live-events.ts';
import type { AgentsService, Caller } from '../agents/agents.service.ts';
import { decideProposal, findProposal, insertProposal, listProposals, reopenProposal, setResultAgent, type NewProposal, type ProposalRow } from './proposals.repo.ts';

export type ProposalsServiceDeps = {
  db: Db;
  agents: Pick<AgentsService, 'get' | 'create' | 'update'>;
  now?: () => Date;
  /** The owner's open consoles show a new or decided proposal live (docs/decisions/0042). */
  events?: EventPublisher;
};

const NOT_FOUND = 'Proposal not found';
export const STALE_PROPOSAL = 'This agent changed since the proposal: read it again and propose anew, or discard this one.';
const decidedText = (status: TProposalStatus) => `This proposal was already ${status}.`;

/** Two configurations alike whatever their keys' order (jsonb keeps its own order). */
function sameJson(a: unknown, b: unknown): boolean {
  const canonical = (value: unknown): unknown =>
    Array.isArray(value)
      ? value.map(canonical)
      : value !== null && typeof value === 'object'
        ? Object.fromEntries(
            Object.entries(value)
              .filter(([, v]) => v !== undefined)
              .sort(([x], [y]) => (x < y ? -1 : 1))
              .map(([k, v]) => [k, canonical(v)]),
          )
        : value;
  return JSON.stringify(canonical(a)) === JSON.stringify(canonical(b));
}

/** A proposal as its owner sees it: the configuration in words and, for a change, what differs from the agent as it was. */
export function toApiProposal(row: ProposalRow): TProposal {
  const proposed = { name: row.name, templateId: row.templateId, config: row.config };
  return {
    id: row.id,
    kind: row.kind,
    status: row.status,
    source: row.source,
    sourceName: row.sourceName,
    reason: row.reason,
    agentId: row.agentId,
    agentName: row.name,
    templateId: row.templateId,
    config: row.config,
    configText: configLines(row.templateId, row.config).map(configLineText),
    differences: row.kind === 'change' && row.baseConfig ? configDifferences({ name: row.baseName ?? row.name, templateId: row.templateId, config: row.baseConfig }, proposed) : [],
    backtest: row.backtest ?? null,
    backtestError: row.backtestError,
    createdAt: row.createdAt.toISOString(),
    decidedAt: row.decidedAt?.toISOString() ?? null,
    resultAgentId: row.resultAgentId,
  };
}

/**
 * Proposals (issue 31, docs/decisions/0076): an assistant records one; only its owner decides.
 * Applying goes through the agents service's own create (the agent left paused, as every new
 * agent starts) and update, with their validation; a change is refused (409) when the agent has
 * changed since it was proposed. A proposal is decided once.
 */
export function createProposalsService({ db, agents, now = () => new Date(), events = NO_EVENTS }: ProposalsServiceDeps) {
  const told = (row: ProposalRow, action: 'created' | 'decided') => events.publish(row.userId, { type: 'proposal', action, proposalId: row.id });

  async function pending(userId: string, id: string): Promise<ProposalRow> {
    const row = await findProposal(db, id, userId);
    if (!row) throw new AppError('NOT_FOUND', NOT_FOUND);
    if (row.status !== 'pending') throw new AppError('CONFLICT', decidedText(row.status));
    return row;
  }

  /** Takes the proposal for this decision, or 409 when another decision took it first. */
  async function take(userId: string, id: string, status: 'applied' | 'discarded'): Promise<ProposalRow> {
    const row = await decideProposal(db, id, userId, status, now());
    if (row) return row;
    const current = await findProposal(db, id, userId);
    if (!current) throw new AppError('NOT_FOUND', NOT_FOUND);
    throw new AppError('CONFLICT', decidedText(current.status));
  }

  /** Runs the agents service's write for a taken proposal; gives the proposal back if it is refused. */
  async function applyTaken(row: ProposalRow, write: () => Promise<{ id: string }>): Promise<TProposal> {
    try {
      const agent = await write();
      const applied = await setResultAgent(db, row.id, agent.id);
      told(applied, 'decided');
      return toApiProposal(applied);
    } catch (err) {
      await reopenProposal(db, row.id);
      throw err;
    }
  }

  return {
    async record(values: NewProposal): Promise<TProposal> {
      const row = await insertProposal(db, values);
      told(row, 'created');
      return toApiProposal(row);
    },

    async list(userId: string, status?: TProposalStatus): Promise<TProposal[]> {
      return (await listProposals(db, userId, status)).map(toApiProposal);
    },

    async get(userId: string, id: string): Promise<TProposal> {
      const row = await findProposal(db, id, userId);
      if (!row) throw new AppError('NOT_FOUND', NOT_FOUND);
      return toApiProposal(row);
    },

    /** Create paused (a new agent) or Apply (a change). */
    async apply(caller: Caller, id: string): Promise<TProposal> {
      const row = await pending(caller.user.id, id);
      if (row.kind === 'create') {
        const taken = await take(caller.user.id, id, 'applied');
        return applyTaken(taken, () => agents.create(caller, { templateId: row.templateId, name: row.name, config: row.config }));
      }
      const agent = await agents.get(caller, row.agentId!);
      if (agent.name !== row.baseName || !sameJson(agent.config, row.baseConfig)) {
        const since = configDifferences({ name: row.baseName ?? agent.name, templateId: row.templateId, config: row.baseConfig as TAgentConfig }, agent);
        throw new AppError(
          'CONFLICT',
          STALE_PROPOSAL,
          since.map((d) => ({ path: d.field, message: `${d.before} → ${d.after}` })),
        );
      }
      const taken = await take(caller.user.id, id, 'applied');
      return applyTaken(taken, () => agents.update(caller, agent.id, { ...(row.name !== agent.name ? { name: row.name } : {}), config: row.config }));
    },

    async discard(userId: string, id: string): Promise<TProposal> {
      await pending(userId, id);
      const discarded = await take(userId, id, 'discarded');
      told(discarded, 'decided');
      return toApiProposal(discarded);
    },
  };
}

export type ProposalsService = ReturnType<typeof createProposalsService>;
