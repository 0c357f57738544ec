import { useQuery } from '@tanstack/react-query';
import type { TProposal, TToolStep } from '../../../../contracts/assistant-tools.ts';
import { ZBacktestResult } from '../../../../contracts/backtest.ts';
import { BacktestSummary } from '../../../components/backtest-summary.tsx';
import { ProposalCard } from '../../../components/proposal-card.tsx';
import { LoadFailed } from '../../../components/ui/load-failed.tsx';
import { Skeleton } from '../../../components/ui/skeleton.tsx';
import { apiRequest } from '../../../lib/api-client.ts';

/** A proposal as its owner sees it now (decided meanwhile in the console, or not). */
const proposalKey = (id: string) => [`/api/agents/proposals/${id}`] as const;

/**
 * The whole result of a step where it matters (issue 31): a test on history's table, a
 * proposal's card with its decision, read anew (it may have been decided elsewhere).
 */
export function ToolStepDetail({ step }: { step: TToolStep }) {
  if (step.proposalId) return <StepProposal id={step.proposalId} />;
  if (step.tool === 'test_on_history' && step.detail !== undefined) {
    const result = ZBacktestResult.safeParse(step.detail);
    return result.success ? <BacktestSummary result={result.data} /> : null;
  }
  return null;
}

function StepProposal({ id }: { id: string }) {
  const proposal = useQuery({ queryKey: proposalKey(id), queryFn: ({ signal }) => apiRequest<TProposal>('GET', `/api/agents/proposals/${encodeURIComponent(id)}`, undefined, { signal }) });
  if (proposal.isPending) return <Skeleton className="h-24 w-full" />;
  if (proposal.isError) return <LoadFailed what="The proposal" error={proposal.error} onRetry={() => void proposal.refetch()} className="mt-2" />;
  return <ProposalCard proposal={proposal.data} />;
}
