import { Plus, Trash2 } from 'lucide-react';
import { NEW_THRESHOLD, THRESHOLD_TYPES, type TThreshold, type TThresholdType } from '../../../../contracts/agents.ts';
import { Button } from '../../../components/ui/button.tsx';
import { thresholdLabel } from '../lib/agent-format.ts';
import { CONTROL } from './form-controls.tsx';

/** The wizard's alert thresholds: type, value in % and message; add (SPEC's default) and remove. */
export function ThresholdsEditor({ value, onChange }: { value: TThreshold[]; onChange(next: TThreshold[]): void }) {
  const update = (index: number, patch: Partial<TThreshold>) => onChange(value.map((t, i) => (i === index ? { ...t, ...patch } : t)));
  return (
    <fieldset>
      <legend className="text-sm font-medium text-slate-900">Alert thresholds</legend>
      {value.length === 0 && <p className="mt-2 text-sm text-slate-600">No thresholds configured</p>}
      <ol className="mt-2 space-y-3">
        {value.map((threshold, index) => {
          const n = index + 1;
          return (
            <li key={index} className="grid gap-2 rounded-lg border border-slate-200 p-3 sm:grid-cols-[10rem_7rem_1fr_auto] sm:items-end">
              <label className="text-sm text-slate-700">
                Type
                <select
                  aria-label={`Threshold ${n} type`}
                  value={threshold.type}
                  onChange={(event) => update(index, { type: event.target.value as TThresholdType })}
                  className={`${CONTROL} mt-1`}
                >
                  {THRESHOLD_TYPES.map((type) => (
                    <option key={type} value={type}>
                      {thresholdLabel(type)}
                    </option>
                  ))}
                </select>
              </label>
              <label className="text-sm text-slate-700">
                Value (%)
                <input
                  aria-label={`Threshold ${n} value (%)`}
                  type="number"
                  min={0}
                  step="any"
                  value={Number.isFinite(threshold.value) ? threshold.value : ''}
                  onChange={(event) => update(index, { value: event.target.value === '' ? Number.NaN : Number(event.target.value) })}
                  className={`${CONTROL} mt-1`}
                />
              </label>
              <label className="text-sm text-slate-700">
                Message
                <input
                  aria-label={`Threshold ${n} message`}
                  type="text"
                  value={threshold.message}
                  onChange={(event) => update(index, { message: event.target.value })}
                  className={`${CONTROL} mt-1`}
                />
              </label>
              <Button variant="ghost" size="icon" aria-label={`Remove threshold ${n}`} onClick={() => onChange(value.filter((_, i) => i !== index))}>
                <Trash2 aria-hidden="true" />
              </Button>
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
