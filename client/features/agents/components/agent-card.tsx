import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useId } from 'react';
import type { TAgent } from '../../../../contracts/agents.ts';
import { Badge } from '../../../components/ui/badge.tsx';
import { Button } from '../../../components/ui/button.tsx';
import { Card } from '../../../components/ui/card.tsx';
import { notify } from '../../../lib/notify.ts';
import { DATE_TIME } from '../../../../contracts/time-format.ts';
import { useTimes } from '../../../lib/times.ts';
import { FailingNotice, PerformanceValue } from './agent-health.tsx';
import { AGENTS_QUERY_KEY, REFRESH_AFTER_FAILURE_MS, REFRESH_AFTER_SUCCESS_MS, changeStatus, statusErrorDetails } from '../api/agents-api.ts';

type Props = { agent: TAgent; templateName: string; onViewDetails(agent: TAgent): void };

/** An agent in the Running or Paused list, with Pause or Resume. */
export function AgentCard({ agent, templateName, onViewDetails }: Props) {
  const id = useId();
  const queryClient = useQueryClient();
  const running = agent.status === 'running';
  const times = useTimes();
  // SPEC: the list refreshes a moment after the change, 500 ms after success and 1 s after failure.
  const refreshIn = (ms: number) => setTimeout(() => void queryClient.invalidateQueries({ queryKey: AGENTS_QUERY_KEY }), ms);
  const toggle = useMutation({
    mutationFn: () => changeStatus(agent.id, running ? 'paused' : 'running'),
    onSuccess: (updated) => {
      const paused = updated.status === 'paused';
      notify.success(paused ? 'Agent paused' : 'Agent resumed', `${updated.name || agent.name} has been ${paused ? 'paused' : 'resumed'} successfully.`);
      refreshIn(REFRESH_AFTER_SUCCESS_MS);
    },
    onError: (err) => {
      notify.error('Failed to update agent', `There was a problem updating your agent: ${statusErrorDetails(err)}. Please try again.`);
      refreshIn(REFRESH_AFTER_FAILURE_MS);
    },
  });
  const pending = toggle.isPending;

  return (
    <Card as="li" aria-labelledby={id} className="flex flex-col p-5">
      <div className="flex items-start justify-between gap-3">
        <h3 id={id} className="text-lg font-semibold break-words text-slate-900">
          {agent.name}
        </h3>
        <Badge variant={running ? 'success' : 'neutral'}>{running ? 'Running' : 'Paused'}</Badge>
      </div>
      <p className="mt-1 text-sm text-slate-600">Based on {templateName}</p>
      <FailingNotice agent={agent} className="mt-3" />
      <dl className="mt-4 grow space-y-1 text-sm">
        <div className="flex justify-between gap-3">
          <dt className="text-slate-600">{running ? 'Last run' : 'Last active'}</dt>
          <dd className="text-slate-900">{times.format(agent.lastRun, DATE_TIME, 'Never')}</dd>
        </div>
        {running && agent.nextRunAt && (
          <div className="flex justify-between gap-3">
            <dt className="text-slate-600">Next run</dt>
            <dd className="text-slate-900">{times.format(agent.nextRunAt, DATE_TIME, 'Not scheduled')}</dd>
          </div>
        )}
        <div className="flex justify-between gap-3">
          <dt className="text-slate-600">Performance</dt>
          <dd className="text-right">
            <PerformanceValue agent={agent} />
          </dd>
        </div>
      </dl>
      <div className="mt-4 flex flex-wrap gap-2">
        <Button variant="outline" onClick={() => onViewDetails(agent)}>
          View Details
        </Button>
        <Button variant={running ? 'secondary' : 'primary'} disabled={pending} onClick={() => toggle.mutate()}>
          {pending ? 'Updating...' : running ? 'Pause' : 'Resume'}
        </Button>
      </div>
    </Card>
  );
}
