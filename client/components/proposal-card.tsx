import { useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { Link } from 'react-router';
import type { TProposal } from '../../contracts/assistant-tools.ts';
import { ZBacktestResult } from '../../contracts/backtest.ts';
import { notificationPath } from '../../contracts/links.ts';
import { ApiError, apiRequest, errorMessage } from '../lib/api-client.ts';
import { notify } from '../lib/notify.ts';
import { BacktestSummary } from './backtest-summary.tsx';
import { Badge } from './ui/badge.tsx';
import { Button } from './ui/button.tsx';
import { Card } from './ui/card.tsx';

/**
 * An assistant's proposal (issue 31, docs/decisions/0076), in the chat where it was made and in
 * the agents console: what it would create or change in plain words, why, who proposed it, its
 * test on history, and the owner's decision: Create paused / Apply, or Discard. The buttons call
 * the proposals API, which goes through the agents service's own validation; nothing else does.
 */

export type ProposalCardProps = { proposal: TProposal; onDecided?(proposal: TProposal): void };

const SOURCES: Record<TProposal['source'], string> = { chat: 'in the chat', mcp: 'over MCP' };
const DECIDED: Record<Exclude<TProposal['status'], 'pending'>, Record<TProposal['kind'], string>> = {
  applied: { create: 'Created, paused', change: 'Applied' },
  discarded: { create: 'Discarded', change: 'Discarded' },
};

/** A refusal's words and the fields it names (a 409 on a stale change lists what changed since). */
function refusal(err: unknown): { message: string; details: string[] } {
  const details =
    err instanceof ApiError && err.body && typeof err.body === 'object' && 'details' in err.body && Array.isArray(err.body.details)
      ? (err.body.details as Array<{ path?: unknown; message?: unknown }>).map((d) => `${String(d.path)}: ${String(d.message)}`)
      : [];
  return { message: errorMessage(err, 'The proposal could not be decided. Please try again.'), details };
}

export function ProposalCard({ proposal: given, onDecided }: ProposalCardProps) {
  const queryClient = useQueryClient();
  const [proposal, setProposal] = useState(given);
  const [pending, setPending] = useState<'apply' | 'discard' | null>(null);
  const [error, setError] = useState<{ message: string; details: string[] } | null>(null);
  const backtest = ZBacktestResult.safeParse(proposal.backtest);
  const create = proposal.kind === 'create';
  const titleId = `proposal-${proposal.id}-title`;

  async function decide(action: 'apply' | 'discard') {
    setPending(action);
    setError(null);
    try {
      const decided = await apiRequest<TProposal>('POST', `/api/agents/proposals/${proposal.id}/${action}`);
      setProposal(decided);
      // The agents (their list, the changed one) and every proposals list read anew.
      void queryClient.invalidateQueries({ predicate: (q) => String(q.queryKey[0]).startsWith('/api/agents') });
      notify.success(action === 'discard' ? 'Proposal discarded' : create ? `${decided.agentName} created, paused` : `Change applied to ${decided.agentName}`);
      onDecided?.(decided);
    } catch (err) {
      const refused = refusal(err);
      setError(refused);
      notify.error(action === 'discard' ? 'Could not discard the proposal' : create ? 'Could not create the agent' : 'Could not apply the change', refused.message);
    } finally {
      setPending(null);
    }
  }

  return (
    <Card as="article" aria-labelledby={titleId} className="p-4">
      <div className="flex flex-wrap items-start justify-between gap-2">
        <h3 id={titleId} className="text-base font-semibold text-slate-900">
          {create ? `Proposed agent: ${proposal.agentName}` : `Proposed change: ${proposal.agentName}`}
        </h3>
        <Badge variant={proposal.status === 'pending' ? 'brand' : proposal.status === 'applied' ? 'success' : 'neutral'}>
          {proposal.status === 'pending' ? 'Waiting for you' : DECIDED[proposal.status][proposal.kind]}
        </Badge>
      </div>
      <p className="mt-1 text-xs text-slate-500">
        Proposed by {proposal.sourceName} {SOURCES[proposal.source]}. Nothing is created or changed until you decide.
      </p>
      <p className="mt-2 text-sm text-slate-700">
        <span className="font-medium">Why: </span>
        {proposal.reason}
      </p>

      {!create && (
        <table className="mt-3 w-full text-left text-sm">
          <caption className="text-left font-medium text-slate-800">Differences</caption>
          <thead className="text-xs text-slate-500">
            <tr>
              <th scope="col" className="py-1 pr-2 font-medium">
                Field
              </th>
              <th scope="col" className="py-1 pr-2 font-medium">
                Now
              </th>
              <th scope="col" className="py-1 font-medium">
                Proposed
              </th>
            </tr>
          </thead>
          <tbody>
            {proposal.differences.length === 0 ? (
              <tr>
                <td colSpan={3} className="py-1 text-slate-600">
                  No difference from the agent as it was proposed against.
                </td>
              </tr>
            ) : (
              proposal.differences.map((d) => (
                <tr key={d.field} className="border-t border-slate-100 align-top">
                  <th scope="row" className="py-1 pr-2 font-normal text-slate-600">
                    {d.field}
                  </th>
                  <td className="py-1 pr-2 text-slate-500 line-through decoration-slate-300">{d.before}</td>
                  <td className="py-1 text-slate-900">{d.after}</td>
                </tr>
              ))
            )}
          </tbody>
        </table>
      )}

      <details className="mt-3" open={create}>
        <summary className="cursor-pointer text-sm font-medium text-slate-800">{create ? 'Configuration' : 'Whole proposed configuration'}</summary>
        <ul className="mt-1 space-y-0.5 text-sm text-slate-700">
          {proposal.configText.map((line) => (
            <li key={line}>{line}</li>
          ))}
        </ul>
      </details>

      <div className="mt-3">
        {backtest.success ? (
          <BacktestSummary result={backtest.data} />
        ) : (
          <p className="text-sm text-slate-600">Not tested on history: {proposal.backtestError ?? 'no result was kept.'}</p>
        )}
      </div>

      {error && (
        <div role="alert" className="mt-3 rounded-md border border-red-200 bg-red-50 p-2 text-sm text-red-800">
          <p>{error.message}</p>
          {error.details.length > 0 && (
            <ul className="mt-1 list-disc pl-5">
              {error.details.map((d) => (
                <li key={d}>{d}</li>
              ))}
            </ul>
          )}
        </div>
      )}

      <div className="mt-4 flex flex-wrap items-center gap-2">
        {proposal.status === 'pending' ? (
          <>
            <Button size="sm" onClick={() => void decide('apply')} disabled={pending !== null}>
              {pending === 'apply' ? (create ? 'Creating…' : 'Applying…') : create ? 'Create paused' : 'Apply'}
            </Button>
            <Button size="sm" variant="outline" onClick={() => void decide('discard')} disabled={pending !== null}>
              {pending === 'discard' ? 'Discarding…' : 'Discard'}
            </Button>
          </>
        ) : (
          proposal.resultAgentId && (
            <Link to={notificationPath({ agentId: proposal.resultAgentId, runId: null })} className="text-sm font-medium text-brand-700 underline">
              Open {proposal.agentName}
            </Link>
          )
        )}
      </div>
    </Card>
  );
}
