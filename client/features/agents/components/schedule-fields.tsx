import { useId } from 'react';
import { FREQUENCIES, WEEKDAYS, type TFrequency, type TSchedule, type TWeekday } from '../../../../contracts/agents.ts';
import { CONTROL } from './form-controls.tsx';
import { frequencyLabel } from '../lib/agent-format.ts';

/** A schedule being edited: the frequency may be unset (details edit), hours are local time. */
export type TScheduleDraft = { frequency: TFrequency | ''; daysActive: TWeekday[]; activeHours: { start: string; end: string } };

export function toDraft(schedule: Omit<TSchedule, 'timeZone'>): TScheduleDraft {
  return { frequency: schedule.frequency, daysActive: [...schedule.daysActive], activeHours: schedule.activeHours ?? { start: '00:00', end: '23:59' } };
}

/** Frequency, active days and active hours; shared by the wizard and the details dialog. */
export function ScheduleFields({ value, onChange, allowUnset = false }: { value: TScheduleDraft; onChange(next: TScheduleDraft): void; allowUnset?: boolean }) {
  const id = useId();
  const toggleDay = (day: TWeekday, on: boolean) =>
    onChange({ ...value, daysActive: WEEKDAYS.filter((d) => (d === day ? on : value.daysActive.includes(d))) });
  return (
    <div className="space-y-5">
      <div>
        <label htmlFor={`${id}-frequency`} className="block text-sm font-medium text-slate-900">
          Frequency
        </label>
        <select
          id={`${id}-frequency`}
          value={value.frequency}
          onChange={(event) => onChange({ ...value, frequency: event.target.value as TFrequency | '' })}
          className={`${CONTROL} mt-1`}
        >
          {(allowUnset || value.frequency === '') && <option value="">Select a frequency</option>}
          {/* One entry per period, shortest first (docs/decisions/0032). */}
          {FREQUENCIES.map((f) => (
            <option key={f} value={f}>
              {frequencyLabel(f)}
            </option>
          ))}
        </select>
      </div>
      <fieldset>
        <legend className="text-sm font-medium text-slate-900">Active days</legend>
        <div className="mt-2 grid grid-cols-2 gap-2 sm:grid-cols-4">
          {WEEKDAYS.map((day) => (
            <label key={day} className="flex items-center gap-2 text-sm text-slate-800">
              <input
                type="checkbox"
                checked={value.daysActive.includes(day)}
                onChange={(event) => toggleDay(day, event.target.checked)}
                className="size-4 rounded border-slate-300 accent-brand-600 focus-visible:outline-2 focus-visible:outline-brand-600"
              />
              {day}
            </label>
          ))}
        </div>
      </fieldset>
      <fieldset>
        <legend className="text-sm font-medium text-slate-900">Active hours (your local time)</legend>
        <div className="mt-2 grid grid-cols-2 gap-3">
          <div>
            <label htmlFor={`${id}-start`} className="block text-sm text-slate-700">
              Start
            </label>
            <input
              id={`${id}-start`}
              type="time"
              value={value.activeHours.start}
              onChange={(event) => onChange({ ...value, activeHours: { ...value.activeHours, start: event.target.value } })}
              className={`${CONTROL} mt-1`}
            />
          </div>
          <div>
            <label htmlFor={`${id}-end`} className="block text-sm text-slate-700">
              End
            </label>
            <input
              id={`${id}-end`}
              type="time"
              value={value.activeHours.end}
              onChange={(event) => onChange({ ...value, activeHours: { ...value.activeHours, end: event.target.value } })}
              className={`${CONTROL} mt-1`}
            />
          </div>
        </div>
      </fieldset>
    </div>
  );
}
