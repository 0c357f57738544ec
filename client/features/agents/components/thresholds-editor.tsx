import { Plus, Trash2 } from 'lucide-react';
import { useId } from 'react';
import { THRESHOLD_MESSAGE_MAX, THRESHOLD_VALUE_MAX, type TThreshold } from '../../../../contracts/agents.ts';
import { followDefaultMessage, NEW_THRESHOLD, THRESHOLD_DEFINITIONS, THRESHOLD_TYPES, type TThresholdType } from '../../../../contracts/alert-thresholds.ts';
import { formatLimit } from '../../../../contracts/number-format.ts';
import { Button } from '../../../components/ui/button.tsx';
import { errorsUnder, NO_FIELD_ERRORS, type TFieldErrors } from '../lib/field-errors.ts';
import { FieldErrorList } from './field-error-list.tsx';
import { CONTROL } from './form-controls.tsx';

const THRESHOLDS_PATH = 'notifications.thresholds';
/** Whether a refused field is one the thresholds editor shows: the list's or one of its items'. */
export const isThresholdPath = (path: string) => path === THRESHOLDS_PATH || path.startsWith(`${THRESHOLDS_PATH}.`);

const FIELDS = ['type', 'value', 'message'] as const;
type TField = (typeof FIELDS)[number];

/**
 * The alerts the user sets: type, value and message; add (SPEC's default) and remove. Beside each
 * value its unit and what is measured, from the type's one definition (decision 0026). A message
 * nobody wrote follows the type and value; one the user typed stays theirs. A refused field is
 * marked where it is (`aria-invalid`, the server's message under its row, read with it).
 */
export function ThresholdsEditor({ value, onChange, errors = NO_FIELD_ERRORS }: { value: TThreshold[]; onChange(next: TThreshold[]): void; errors?: TFieldErrors }) {
  const id = useId();
  const update = (index: number, patch: Partial<TThreshold>) =>
    onChange(value.map((t, i) => (i !== index ? t : 'message' in patch ? { ...t, ...patch } : followDefaultMessage({ ...t, ...patch }))));
  const listError = errors[THRESHOLDS_PATH];
  return (
    <fieldset aria-describedby={`${id}-about${listError ? ` ${id}-error` : ''}`}>
      <legend className="text-sm font-medium text-slate-900">Alert thresholds</legend>
      <p id={`${id}-about`} className="mt-1 text-sm text-slate-600">
        Alerts are the limits you set: each one notifies you when its measure on a market's latest candle goes above your value. The template's signals are
        evaluated on every run as well and shown in Run History.
      </p>
      <p id={`${id}-rule`} className="mt-1 text-sm text-slate-600">
        {`Each value is from 0 to ${formatLimit(THRESHOLD_VALUE_MAX)}; each message is required, up to ${THRESHOLD_MESSAGE_MAX} characters.`}
      </p>
      {listError && (
        <p id={`${id}-error`} className="mt-1 text-sm font-medium text-red-700">
          {listError}
        </p>
      )}
      {value.length === 0 && <p className="mt-2 text-sm text-slate-600">No thresholds configured</p>}
      <ol className="mt-2 space-y-3">
        {value.map((threshold, index) => {
          const n = index + 1;
          const definition = THRESHOLD_DEFINITIONS[threshold.type];
          const explanationId = `${id}-${index}-explanation`;
          const errorOf = (field: TField) => errors[`${THRESHOLDS_PATH}.${index}.${field}`];
          const errorId = (field: TField) => `${id}-${index}-${field}-error`;
          // Each control: marked when refused, and described by its message before its hints.
          const marked = (field: TField, hints: string) => ({
            'aria-invalid': errorOf(field) ? true : undefined,
            'aria-describedby': errorOf(field) ? `${errorId(field)} ${hints}` : hints,
          });
          const rowErrors = FIELDS.filter((field) => errorOf(field));
          // A refusal of the row itself (a key it should not have): said in the row, focusable.
          const rowProblems = errorsUnder(errors, `${THRESHOLDS_PATH}.${index}`).filter(([path]) => !FIELDS.some((field) => path === `${THRESHOLDS_PATH}.${index}.${field}`));
          return (
            <li key={index} className="rounded-lg border border-slate-200 p-3">
              <div className="grid gap-2 sm:grid-cols-[10rem_12rem_1fr_auto] sm:items-end">
                <label className="text-sm text-slate-700">
                  Type
                  <select
                    aria-label={`Threshold ${n} type`}
                    {...marked('type', explanationId)}
                    value={threshold.type}
                    onChange={(event) => update(index, { type: event.target.value as TThresholdType })}
                    className={`${CONTROL} mt-1`}
                  >
                    {THRESHOLD_TYPES.map((type) => (
                      <option key={type} value={type}>
                        {THRESHOLD_DEFINITIONS[type].label}
                      </option>
                    ))}
                  </select>
                </label>
                <label className="text-sm text-slate-700">
                  Value (%)
                  <span className="mt-1 flex items-center gap-2">
                    <input
                      aria-label={`Threshold ${n} value (%)`}
                      {...marked('value', `${explanationId}-unit ${explanationId} ${id}-rule`)}
                      type="number"
                      min={0}
                      step="any"
                      value={Number.isFinite(threshold.value) ? threshold.value : ''}
                      onChange={(event) => update(index, { value: event.target.value === '' ? Number.NaN : Number(event.target.value) })}
                      className={`${CONTROL} min-w-0 flex-1`}
                    />
                    <span id={`${explanationId}-unit`} className="w-20 shrink-0 text-xs leading-tight text-slate-600">
                      {definition.unit}
                    </span>
                  </span>
                </label>
                <label className="text-sm text-slate-700">
                  Message
                  <input
                    aria-label={`Threshold ${n} message`}
                    {...marked('message', `${id}-rule`)}
                    type="text"
                    value={threshold.message}
                    onChange={(event) => update(index, { message: event.target.value })}
                    className={`${CONTROL} mt-1`}
                  />
                </label>
                <Button variant="ghost" size="icon" aria-label={`Remove threshold ${n}`} onClick={() => onChange(value.filter((_, i) => i !== index))}>
                  <Trash2 aria-hidden="true" />
                </Button>
              </div>
              {rowErrors.map((field) => (
                <p key={field} id={errorId(field)} className="mt-2 text-sm font-medium text-red-700">
                  {errorOf(field)}
                </p>
              ))}
              {rowProblems.length > 0 && <FieldErrorList label={`Threshold ${n} problems`} errors={rowProblems} />}
              <p id={explanationId} className="mt-2 text-xs text-slate-600">
                {definition.explanation}
              </p>
            </li>
          );
        })}
      </ol>
      <Button variant="outline" size="sm" className="mt-3" onClick={() => onChange([...value, { ...NEW_THRESHOLD }])}>
        <Plus aria-hidden="true" /> Add threshold
      </Button>
    </fieldset>
  );
}
