import { ChevronRight, Wrench } from 'lucide-react';
import { Fragment, useId, useState, type ReactNode } from 'react';
import { TOOL_LABELS, isAgentTool, type TToolStep, type TToolStepStatus } from '../../../../contracts/assistant-tools.ts';
import { stepDuration } from '../../../../contracts/chat-history.ts';
import { ToolStepDetail } from './tool-step-detail.tsx';

/** How a step ended, in words; none for one that went well. */
const STATUS_TEXT: Record<TToolStepStatus, string | null> = {
  running: 'Running…',
  ok: null,
  invalid: 'Invalid arguments',
  'not-found': 'Not found',
  failed: 'Failed',
  timeout: 'Timed out',
  'rate-limited': 'Rate limited',
  stopped: 'Stopped',
  refused: 'Refused',
};

export const stepLabel = (step: TToolStep) => (isAgentTool(step.tool) ? TOOL_LABELS[step.tool] : step.tool);

/**
 * One tool step of an answer (issue 31, docs/decisions/0076), collapsed: what the assistant did,
 * with what (in plain words), what it found and how long it took. Expanded: the same in full and,
 * where it matters, the whole result (a test on history's table, a proposal's card).
 */
export function ToolStepView({ step }: { step: TToolStep }) {
  const [open, setOpen] = useState(false);
  const panelId = useId();
  const status = STATUS_TEXT[step.status];
  const running = step.status === 'running';
  const trouble = !running && step.status !== 'ok';
  return (
    <div className={`my-2 rounded-lg border text-sm ${trouble ? 'border-amber-300 bg-amber-50' : 'border-slate-200 bg-slate-50'}`}>
      <button
        type="button"
        aria-expanded={open}
        aria-controls={panelId}
        onClick={() => setOpen((o) => !o)}
        className="flex w-full items-start gap-2 rounded-lg px-3 py-2 text-left text-slate-800 hover:bg-slate-100 focus-visible:outline-2 focus-visible:outline-brand-600"
      >
        <ChevronRight aria-hidden="true" className={`mt-0.5 size-4 shrink-0 text-slate-500 transition-transform motion-reduce:transition-none ${open ? 'rotate-90' : ''}`} />
        {running ? (
          <span aria-hidden="true" className="mt-0.5 size-4 shrink-0 animate-spin rounded-full border-2 border-brand-100 border-t-brand-600 motion-reduce:animate-none" />
        ) : (
          <Wrench aria-hidden="true" className="mt-0.5 size-4 shrink-0 text-brand-600" />
        )}
        <span className="min-w-0 flex-1 wrap-anywhere">
          <span className="font-medium">{stepLabel(step)}</span>
          {step.argsText && <span className="text-slate-600"> · {step.argsText}</span>}
          {step.summary && <span className={trouble ? 'text-amber-900' : 'text-slate-700'}> — {step.summary}</span>}
        </span>
        <span className="shrink-0 text-xs text-slate-600">
          {status && (
            <span className={trouble ? 'mr-2 font-medium text-amber-900' : 'mr-2'}>
              <span className="sr-only">, </span>
              {status}
            </span>
          )}
          {!running && (
            <>
              <span className="sr-only">, took </span>
              {stepDuration(step.durationMs)}
            </>
          )}
        </span>
      </button>
      {open && (
        <div id={panelId} className="space-y-2 border-t border-slate-200 px-3 py-2 text-slate-800">
          <dl className="grid grid-cols-[auto_1fr] gap-x-3 gap-y-1">
            <dt className="text-slate-600">Tool</dt>
            <dd className="font-mono text-xs">{step.tool}</dd>
            <dt className="text-slate-600">With</dt>
            <dd className="wrap-anywhere">{step.argsText || '—'}</dd>
            <dt className="text-slate-600">Found</dt>
            <dd className="wrap-anywhere">{step.summary || (running ? 'Still running' : '—')}</dd>
          </dl>
          <ToolStepDetail step={step} />
        </div>
      )}
    </div>
  );
}

/**
 * An answer's text with its tool steps where they happened (each step's `at`: the text's length
 * when it was called). `text(from, to)` renders a piece of the text; the last piece of an answer
 * still streaming is its live text.
 */
export function TextWithSteps({ content, steps, text, tail }: { content: string; steps: readonly TToolStep[]; text(piece: string, key: string): ReactNode; tail?: (from: number) => ReactNode }) {
  const places = [...new Set(steps.map((s) => Math.min(Math.max(0, s.at), content.length)))].sort((a, b) => a - b);
  let from = 0;
  const parts: ReactNode[] = [];
  for (const place of places) {
    if (place > from) parts.push(text(content.slice(from, place), `text-${from}`));
    parts.push(
      <Fragment key={`steps-${place}`}>
        {steps
          .filter((s) => Math.min(Math.max(0, s.at), content.length) === place)
          .map((s) => (
            <ToolStepView key={s.id} step={s} />
          ))}
      </Fragment>,
    );
    from = place;
  }
  parts.push(tail ? <Fragment key="tail">{tail(from)}</Fragment> : from < content.length ? text(content.slice(from), `text-${from}`) : null);
  return <>{parts}</>;
}
