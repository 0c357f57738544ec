import { useState } from 'react';
import type { TProposal } from '../../../../contracts/assistant-tools.ts';
import { ProposalCard } from '../../../components/proposal-card.tsx';
import { LoadFailed } from '../../../components/ui/load-failed.tsx';
import { usePendingProposals } from '../api/agents-api.ts';

/**
 * The console's "Proposals" (issue 31): agents and changes an assistant proposed, in the chat or
 * over MCP, waiting for the owner's decision. Absent while there are none. A card decided here
 * stays, in its decided state with its link, until the page is left (the list itself reads anew).
 */
export function ProposalsSection({ enabled }: { enabled: boolean }) {
  const proposals = usePendingProposals(enabled);
  const [decided, setDecided] = useState<TProposal[]>([]);
  if (proposals.isError) return <LoadFailed what="Your proposals" error={proposals.error} onRetry={() => void proposals.refetch()} />;
  const pending = proposals.data ?? [];
  const shown = [...decided.filter((d) => !pending.some((p) => p.id === d.id)), ...pending];
  if (shown.length === 0) return null;
  return (
    <section aria-labelledby="proposals-heading" className="mt-8">
      <h2 id="proposals-heading" className="text-xl font-semibold text-slate-900">
        Proposals
      </h2>
      <p className="mt-1 text-sm text-slate-600">Agents and changes your assistants proposed. Nothing is created or changed until you decide.</p>
      <ul aria-label="Proposals" className="mt-4 grid gap-4 lg:grid-cols-2">
        {shown.map((proposal) => (
          <li key={proposal.id}>
            <ProposalCard proposal={proposal} onDecided={(p) => setDecided((list) => [p, ...list.filter((d) => d.id !== p.id)])} />
          </li>
        ))}
      </ul>
    </section>
  );
}
