import { useState } from 'react';
import type { TAgentRun, TRunHistoryEntry } from '../../../../contracts/agents.ts';
import { Badge, type BadgeVariant } from '../../../components/ui/badge.tsx';
import { Spinner } from '../../../components/ui/spinner.tsx';
import { RUN_TIME, formatDate, formatDuration } from '../lib/agent-format.ts';
import { RunResult, resultHeadline } from './run-result.tsx';

/** The error the runtime records when the worker running a run stopped before it finished. */
export const INTERRUPTED_ERROR = 'interrupted';

export function runBadge(status: TAgentRun['status']): { label: string; variant: BadgeVariant; className?: string } {
  if (status === 'success') return { label: 'Success', variant: 'success' };
  if (status === 'queued') return { label: 'Queued', variant: 'neutral' };
  if (status === 'running') return { label: 'Running', variant: 'brand' };
  return { label: 'Failure', variant: 'neutral', className: 'bg-red-100 text-red-800' };
}

/** A failure's error for reading: the runtime's bare 'interrupted' says little on its own. */
export function runErrorText(error: string): string {
  return error.trim() === INTERRUPTED_ERROR
    ? 'Interrupted: the worker running this agent stopped before the run finished. Later runs are not affected.'
    : error;
}

/** SPEC's Run History: 'Last N executions', newest first, each run with its status, times, error
 * and result. The newest result is open; older ones fold into one line each. */
export function RunHistory({ runs, loading }: { runs: TRunHistoryEntry[] | undefined; loading: boolean }) {
  if (loading) return <Spinner label="Loading run history" />;
  if (!runs || runs.length === 0) return <p className="py-6 text-center text-sm text-slate-600">No execution history available</p>;
  const newestWithResult = runs.findIndex(hasResult);
  return (
    <div>
      <h3 className="text-sm font-semibold text-slate-900">Last {runs.length} executions</h3>
      <ol className="mt-3 space-y-3">
        {runs.map((run, index) => (
          <RunItem key={run.id} run={run} expanded={index === newestWithResult} />
        ))}
      </ol>
    </div>
  );
}

/** A run with a result to show, of TRunResult's shape or not. */
const hasResult = (run: TRunHistoryEntry) => run.result !== null || (run.unreadableResult !== undefined && run.unreadableResult !== null);

function RunItem({ run, expanded }: { run: TRunHistoryEntry; expanded: boolean }) {
  const badge = runBadge(run.status);
  const duration = formatDuration(run.startTime, run.endTime);
  return (
    <li className="rounded-lg border border-slate-200 p-3 text-sm">
      <div className="flex flex-wrap items-center gap-x-2 gap-y-1">
        <Badge variant={badge.variant} className={badge.className}>
          {run.status === 'running' && <span aria-hidden="true" className="size-1.5 animate-pulse rounded-full bg-current motion-reduce:animate-none" />}
          {badge.label}
        </Badge>
        <span className="font-medium text-slate-900">Run #{run.id}</span>
        <span className="text-slate-600">{run.scheduledFor ? `Scheduled for ${formatDate(run.scheduledFor, RUN_TIME)}` : 'Run now'}</span>
        {duration && <span className="ml-auto text-slate-600">Duration: {duration}</span>}
      </div>
      <p className="mt-1 text-slate-600">{timesText(run)}</p>
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

function timesText(run: TAgentRun): string {
  const at = (iso: string | null) => formatDate(iso, RUN_TIME, 'unknown');
  if (run.status === 'queued') return `Queued at ${at(run.createdAt)}, waiting for a worker`;
  if (!run.startTime) return `Queued at ${at(run.createdAt)}, never started`;
  if (run.status === 'running') return `Started ${at(run.startTime)}, still running`;
  return `Started ${at(run.startTime)} · Ended ${at(run.endTime)}`;
}
