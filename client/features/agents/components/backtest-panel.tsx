import '../../../lib/zod-csp.ts';
import { FlaskConical, X } from 'lucide-react';
import { useEffect, useId, useRef, useState } from 'react';
import { BACKTEST_CANDLES_DEFAULT, BACKTEST_CANDLES_LABEL, BACKTEST_CANDLES_MAX, BACKTEST_CANDLES_MIN, ZBacktestCandles, type TBacktestResult } from '../../../../contracts/backtest.ts';
import { formatNumber } from '../../../../contracts/number-format.ts';
import { Button } from '../../../components/ui/button.tsx';
import { Spinner } from '../../../components/ui/spinner.tsx';
import { ApiError, errorMessage } from '../../../lib/api-client.ts';
import { BacktestError, type TBacktestOptions, type TBacktestProgress } from '../api/agents-api.ts';
import { fieldErrors, type TFieldErrors } from '../lib/field-errors.ts';
import { BacktestResultView } from './backtest-result.tsx';
import { FieldErrorList } from './field-error-list.tsx';
import { CONTROL } from './form-controls.tsx';

/** Progress bars appear only for a test whose history takes longer than this to load. */
export const PROGRESS_DELAY_MS = 1000;

export type TBacktestPanelProps = {
  /** Runs the test on the configuration as it stands now (read at the press of the button). */
  run(candles: number, options: TBacktestOptions): Promise<TBacktestResult>;
  /** A refusal naming the configuration's fields (all but the candles): mark them where they live. */
  onRefused?(errors: TFieldErrors): void;
  /** Starts the test at once when mounted with one, and again whenever it changes (a condition
   * drafted from words is tested as soon as it is in the builder: issue 30 item 5). */
  autoStartKey?: string;
};

type TState =
  | { status: 'idle'; note?: string }
  | { status: 'running'; progress: ReadonlyMap<string, TBacktestProgress>; showProgress: boolean }
  | { status: 'done'; result: TBacktestResult }
  | { status: 'failed'; message: string; fields: TFieldErrors | null };

/** The sentence for a test that did not finish. */
export function failureText(err: unknown): string {
  if (err instanceof BacktestError) return err.message;
  if (err instanceof ApiError) {
    const body = err.body && typeof err.body === 'object' ? (err.body as { error?: unknown }) : {};
    if (err.status === 429) return typeof body.error === 'string' && body.error ? body.error : 'Too many tests in a short time. Please wait a minute and try again.';
    if (err.status === 403) return 'Only admins can test on history.';
    if (err.status === 404) return 'This agent no longer exists, or is not yours.';
  }
  if (err instanceof Error && err.name === 'ZodError') return "The test's answer could not be read. Please try again.";
  return errorMessage(err, 'The test could not finish. Please try again.');
}

/**
 * "Test on history" (issue 16): how many candles, the button, and while it runs a Cancel and, past
 * a second, a progress bar per market; then the result. Leaving (closing the dialog, another tab)
 * cancels a running test: the request is aborted and the server stops loading history.
 */
export default function BacktestPanel({ run, onRefused, autoStartKey }: TBacktestPanelProps) {
  const id = useId();
  const [candles, setCandles] = useState(String(BACKTEST_CANDLES_DEFAULT));
  const [candlesError, setCandlesError] = useState<string | null>(null);
  const [state, setState] = useState<TState>({ status: 'idle' });
  const controller = useRef<AbortController | null>(null);
  useEffect(() => () => controller.current?.abort(), []);

  const start = async () => {
    const parsed = ZBacktestCandles.safeParse(candles.trim() === '' ? Number.NaN : Number(candles));
    if (!parsed.success) {
      setCandlesError(parsed.error.issues[0]?.message ?? `${BACKTEST_CANDLES_LABEL} must be a number`);
      document.getElementById(`${id}-candles`)?.focus();
      return;
    }
    setCandlesError(null);
    controller.current?.abort();
    const mine = new AbortController();
    controller.current = mine;
    setState({ status: 'running', progress: new Map(), showProgress: false });
    const timer = setTimeout(() => setState((s) => (s.status === 'running' ? { ...s, showProgress: true } : s)), PROGRESS_DELAY_MS);
    const onProgress = (p: TBacktestProgress) =>
      setState((s) => (s.status === 'running' && !mine.signal.aborted ? { ...s, progress: new Map(s.progress).set(p.market, p) } : s));
    try {
      const result = await run(parsed.data, { signal: mine.signal, onProgress });
      if (!mine.signal.aborted) setState({ status: 'done', result });
    } catch (err) {
      if (mine.signal.aborted) return;
      const refused = fieldErrors(err);
      if (refused?.candles) setCandlesError(refused.candles);
      const { candles: _candles, ...rest } = refused ?? {};
      const fields = Object.keys(rest).length > 0 ? rest : null;
      if (fields) onRefused?.(fields);
      setState({ status: 'failed', message: refused ? 'The test was refused: some settings need a change.' : failureText(err), fields });
    } finally {
      clearTimeout(timer);
      if (controller.current === mine) controller.current = null;
    }
  };
  // The render that brings a new key holds the configuration it was given for: its `start`
  // (kept by the effect before, as effects run in order) reads it.
  const startOnKey = useRef(start);
  useEffect(() => {
    startOnKey.current = start;
  });
  useEffect(() => {
    if (autoStartKey !== undefined) void startOnKey.current();
  }, [autoStartKey]);
  const cancel = () => {
    controller.current?.abort();
    controller.current = null;
    setState({ status: 'idle', note: 'Test cancelled.' });
  };
  const running = state.status === 'running';

  return (
    <section aria-label="Test on history" className="space-y-4">
      <p className="text-sm text-slate-600">
        See how often each signal and alert of this configuration would have fired on each watched market&apos;s latest candles, and what the price did next. Unsaved changes are
        included; nothing is saved or sent.
      </p>
      <div className="flex flex-wrap items-end gap-3">
        <div className="w-48">
          <label htmlFor={`${id}-candles`} className="block text-sm font-medium text-slate-900">
            {BACKTEST_CANDLES_LABEL}
          </label>
          <input
            id={`${id}-candles`}
            type="number"
            inputMode="numeric"
            min={BACKTEST_CANDLES_MIN}
            max={BACKTEST_CANDLES_MAX}
            step={1}
            value={candles}
            disabled={running}
            onChange={(event) => {
              setCandles(event.target.value);
              setCandlesError(null);
            }}
            onKeyDown={(event) => {
              if (event.key === 'Enter' && !running) void start();
            }}
            aria-invalid={candlesError ? true : undefined}
            aria-describedby={`${id}-candles-hint${candlesError ? ` ${id}-candles-error` : ''}`}
            className={`${CONTROL} mt-1`}
          />
        </div>
        {running ? (
          <Button variant="outline" onClick={cancel}>
            <X aria-hidden="true" /> Cancel test
          </Button>
        ) : (
          <Button onClick={() => void start()}>
            <FlaskConical aria-hidden="true" /> Test on history
          </Button>
        )}
      </div>
      <p id={`${id}-candles-hint`} className="-mt-2 text-sm text-slate-600">
        A whole number from {formatNumber(BACKTEST_CANDLES_MIN, 0)} to {formatNumber(BACKTEST_CANDLES_MAX, 0)} ({formatNumber(BACKTEST_CANDLES_DEFAULT, 0)} unless changed), in each
        market&apos;s own timeframe.
      </p>
      {candlesError && (
        <p id={`${id}-candles-error`} className="text-sm font-medium text-red-700">
          {candlesError}
        </p>
      )}
      <div aria-live="polite">
        {state.status === 'running' && <Progress progress={state.progress} show={state.showProgress} />}
        {state.status === 'idle' && state.note && <p className="text-sm text-slate-600">{state.note}</p>}
        {state.status === 'failed' && (
          <div>
            <p className="text-sm font-medium text-red-700">{state.message}</p>
            {state.fields && <FieldErrorList label="Settings to change" errors={Object.entries(state.fields)} />}
          </div>
        )}
      </div>
      {state.status === 'done' && <BacktestResultView result={state.result} />}
    </section>
  );
}

/** While history loads: a spinner, then past PROGRESS_DELAY_MS one labelled bar per market. */
function Progress({ progress, show }: { progress: ReadonlyMap<string, TBacktestProgress>; show: boolean }) {
  return (
    <div className="space-y-2">
      <Spinner label="Testing on history" />
      {show && progress.size > 0 && (
        <ul aria-label="Loading history" className="space-y-2">
          {[...progress.values()].map((p) => {
            const total = Math.max(p.total, 1);
            const loaded = Math.min(Math.max(p.loaded, 0), total);
            return (
              <li key={p.market} className="text-sm">
                <div className="flex justify-between gap-3 text-slate-700">
                  <span>{p.market}</span>
                  <span>
                    {formatNumber(loaded, 0)} of {formatNumber(p.total, 0)} candles
                  </span>
                </div>
                <div
                  role="progressbar"
                  aria-label={p.market}
                  aria-valuemin={0}
                  aria-valuemax={total}
                  aria-valuenow={loaded}
                  aria-valuetext={`${formatNumber(loaded, 0)} of ${formatNumber(p.total, 0)} candles`}
                  className="mt-1 h-2 overflow-hidden rounded-full bg-slate-200"
                >
                  <div className="h-full bg-brand-600" style={{ width: `${(loaded / total) * 100}%` }} />
                </div>
              </li>
            );
          })}
        </ul>
      )}
    </div>
  );
}
