import { CircleAlert } from 'lucide-react';
import type { TAgent } from '../../../../contracts/agents.ts';
import { DATE_TIME } from '../../../../contracts/time-format.ts';
import { useTimes, type Times } from '../../../lib/times.ts';
import { performanceClass } from '../lib/agent-format.ts';

/**
 * A failing agent says so where its owner looks (issue 15 item 3): the latest run's one-line
 * reason and when it last succeeded. Nothing for an agent whose latest run went well.
 */
export function FailingNotice({ agent, className = '' }: { agent: TAgent; className?: string }) {
  const times = useTimes();
  if (agent.health.state !== 'failing') return null;
  return (
    <div className={`rounded-lg border border-red-200 bg-red-50 p-3 text-sm text-red-800 ${className}`}>
      <p className="flex items-start gap-1.5 font-semibold">
        <CircleAlert aria-hidden="true" className="mt-0.5 size-4 shrink-0" />
        Failing
      </p>
      <p className="mt-1 break-words">{agent.health.reason}</p>
      <p className="mt-1 text-red-700">{lastSuccessText(agent, times)}</p>
    </div>
  );
}

export const lastSuccessText = (agent: TAgent, times: Times) =>
  agent.health.lastSuccessAt ? `Last successful run: ${times.format(agent.health.lastSuccessAt, DATE_TIME, 'unknown')}` : 'No successful run yet';

/**
 * The latest successful run's performance with that run's time, so a value from before a string
 * of failures never reads as current; 'Not available' when that run had nothing to compare with.
 */
export function PerformanceValue({ agent }: { agent: TAgent }) {
  const times = useTimes();
  if (!agent.performance) return <span className="text-slate-600">Not available</span>;
  return (
    <span>
      <span className={`font-medium ${performanceClass(agent.performance)}`}>{agent.performance}</span>
      {agent.health.lastSuccessAt && <span className="text-xs text-slate-600"> at {times.format(agent.health.lastSuccessAt, DATE_TIME, 'an unknown time')}</span>}
    </span>
  );
}
