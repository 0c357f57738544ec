import '../lib/zod-csp.ts';
import { useQuery } from '@tanstack/react-query';
import { ZProposal } from '../../contracts/assistant-tools.ts';
import { ApiError } from '../lib/api-client.ts';
import { parsedQueryFn } from '../lib/query-client.ts';
import { ProposalCard, type ProposalCardProps } from './proposal-card.tsx';
import { LoadFailed } from './ui/load-failed.tsx';
import { Skeleton } from './ui/skeleton.tsx';

/** One proposal's query key (under /api/agents: a decision or a live event refreshes it with the agents). */
export const proposalQueryKey = (id: string) => [`/api/agents/proposals/${id}`] as const;

/**
 * A proposal read by its id, as a chat's step names it (issue 31): its card once loaded, a
 * placeholder meanwhile, and a plain sentence when it is gone (or not the reader's) or failed.
 */
export function ProposalById({ id, onDecided }: { id: string } & Pick<ProposalCardProps, 'onDecided'>) {
  const proposal = useQuery({ queryKey: proposalQueryKey(id), queryFn: parsedQueryFn(ZProposal) });
  if (proposal.isPending) return <Skeleton className="h-40" />;
  if (proposal.isError) {
    if (proposal.error instanceof ApiError && proposal.error.status === 404) return <p className="text-sm text-slate-600">This proposal no longer exists.</p>;
    return <LoadFailed what="The proposal" error={proposal.error} onRetry={() => void proposal.refetch()} className="" />;
  }
  // Keyed by its state: a decision seen elsewhere (the console, another tab) shows here too.
  return <ProposalCard key={`${proposal.data.id}:${proposal.data.status}`} proposal={proposal.data} {...(onDecided ? { onDecided } : {})} />;
}
