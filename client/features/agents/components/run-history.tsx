import { useEffect, useRef, useState } from 'react';
import type { TAgentRun, TRunHistoryEntry } from '../../../../contracts/agents.ts';
import { Badge, type BadgeVariant } from '../../../components/ui/badge.tsx';
import { Spinner } from '../../../components/ui/spinner.tsx';
import { RUN_TIME } from '../../../../contracts/time-format.ts';
import { useTimes, type Times } from '../../../lib/times.ts';
import { formatDuration } from '../lib/agent-format.ts';
import { RunResult, resultHeadline } from './run-result.tsx';

/** The error the runtime records when the worker running a run stopped before it finished. */
export const INTERRUPTED_ERROR = 'interrupted';

export function runBadge(status: TAgentRun['status']): { label: string; variant: BadgeVariant; className?: string } {
  if (status === 'success') return { label: 'Success', variant: 'success' };
  if (status === 'queued') return { label: 'Queued', variant: 'neutral' };
  if (status === 'running') return { label: 'Running', variant: 'brand' };
  return { label: 'Failure', variant: 'danger' };
}

/** A failure's error for reading: the runtime's bare 'interrupted' says little on its own. */
export function runErrorText(error: string): string {
  return error.trim() === INTERRUPTED_ERROR
    ? 'Interrupted: the worker running this agent stopped before the run finished. Later runs are not affected.'
    : error;
}

/** SPEC's Run History: 'Last N executions', newest first, each run with its status, times, error
 * and result. The newest result is open; older ones fold into one line each. */
export function RunHistory({ runs, loading, focusRunId = null }: { runs: TRunHistoryEntry[] | undefined; loading: boolean; focusRunId?: number | null }) {
  if (loading) return <Spinner label="Loading run history" />;
  if (!runs || runs.length === 0) return <p className="py-6 text-center text-sm text-slate-600">No execution history available</p>;
  // A notification's run opens with its result; otherwise the newest result is open.
  const focused = focusRunId === null ? -1 : runs.findIndex((run) => run.id === focusRunId);
  const newestWithResult = focused !== -1 ? focused : runs.findIndex(hasResult);
  return (
    <div>
      <h3 className="text-sm font-semibold text-slate-900">Last {runs.length} executions</h3>
      <ol className="mt-3 space-y-3">
        {runs.map((run, index) => (
          <RunItem key={run.id} run={run} expanded={index === newestWithResult} focused={index === focused} />
        ))}
      </ol>
    </div>
  );
}

/** A run with a result to show, of TRunResult's shape or not. */
const hasResult = (run: TRunHistoryEntry) => run.result !== null || (run.unreadableResult !== undefined && run.unreadableResult !== null);

function RunItem({ run, expanded, focused }: { run: TRunHistoryEntry; expanded: boolean; focused: boolean }) {
  const badge = runBadge(run.status);
  const times = useTimes();
  const duration = formatDuration(run.startTime, run.endTime);
  const item = useRef<HTMLLIElement>(null);
  useEffect(() => {
    // Optional call: jsdom (the component tests) has no scrolling.
    if (focused) item.current?.scrollIntoView?.({ block: 'start' });
  }, [focused]);
  return (
    <li
      ref={item}
      aria-current={focused ? 'true' : undefined}
      className={`scroll-mt-4 rounded-lg border p-3 text-sm ${focused ? 'border-brand-600 ring-2 ring-brand-600/30' : 'border-slate-200'}`}
    >
      <div className="flex flex-wrap items-center gap-x-2 gap-y-1">
        <Badge variant={badge.variant} className={badge.className}>
          {run.status === 'running' && <span aria-hidden="true" className="size-1.5 animate-pulse rounded-full bg-current motion-reduce:animate-none" />}
          {badge.label}
        </Badge>
        <span className="font-medium text-slate-900">Run #{run.id}</span>
        {focused && <span className="text-xs text-brand-700">From your notification</span>}
        <span className="text-slate-600">{run.scheduledFor ? `Scheduled for ${times.format(run.scheduledFor, RUN_TIME, 'unknown')}` : 'Run now'}</span>
        {duration && <span className="ml-auto text-slate-600">Duration: {duration}</span>}
      </div>
      <p className="mt-1 text-slate-600">{timesText(run, times)}</p>
      {run.error && <p className="mt-2 text-red-700">{runErrorText(run.error)}</p>}
      {hasResult(run) &&
        (expanded ? (
          <RunResult result={run.result} unreadable={run.unreadableResult} />
        ) : (
          <FoldedResult run={run} />
        ))}
    </li>
  );
}

/** An older run's result, built only once opened: fifty runs of tables would weigh on the dialog. */
function FoldedResult({ run }: { run: TRunHistoryEntry }) {
  const [open, setOpen] = useState(false);
  return (
    <details className="mt-2" onToggle={(event) => setOpen(event.currentTarget.open)}>
      <summary className="cursor-pointer rounded text-slate-700 hover:text-slate-900 focus-visible:outline-2 focus-visible:outline-offset-2 focus-visible:outline-brand-600">
        Result: {run.result ? resultHeadline(run.result) : 'show'}
      </summary>
      {open && <RunResult result={run.result} unreadable={run.unreadableResult} />}
    </details>
  );
}

function timesText(run: TAgentRun, times: Times): string {
  const at = (iso: string | null) => times.format(iso, RUN_TIME, 'unknown');
  if (run.status === 'queued') return `Queued at ${at(run.createdAt)}, waiting for a worker`;
  if (!run.startTime) return `Queued at ${at(run.createdAt)}, never started`;
  if (run.status === 'running') return `Started ${at(run.startTime)}, still running`;
  return `Started ${at(run.startTime)} · Ended ${at(run.endTime)}`;
}
