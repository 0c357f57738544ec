import { useId } from 'react';
import { FREQUENCIES, WEEKDAYS, type TFrequency, type TSchedule, type TWeekday } from '../../../../contracts/agents.ts';
import { CONTROL } from './form-controls.tsx';
import { frequencyLabel } from '../lib/agent-format.ts';

/** A schedule being edited: the frequency may be unset (details edit); hours are 'HH:mm' in the schedule's zone. */
export type TScheduleDraft = { frequency: TFrequency | ''; daysActive: TWeekday[]; activeHours: { start: string; end: string } };

export function toDraft(schedule: Omit<TSchedule, 'timeZone'>): TScheduleDraft {
  return { frequency: schedule.frequency, daysActive: [...schedule.daysActive], activeHours: schedule.activeHours ?? { start: '00:00', end: '23:59' } };
}

/** Frequency, active days and active hours (in `timeZone`, named); shared by the wizard and the details dialog. */
export function ScheduleFields({
  value,
  onChange,
  allowUnset = false,
  timeZone,
}: {
  value: TScheduleDraft;
  onChange(next: TScheduleDraft): void;
  allowUnset?: boolean;
  timeZone: string;
}) {
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
        <legend className="text-sm font-medium text-slate-900">Active hours ({timeZone})</legend>
        <p id={`${id}-hours-hint`} className="mt-1 text-sm text-slate-600">
          24-hour clock, HH:mm: 00:00 is midnight.
        </p>
        <div className="mt-2 grid grid-cols-2 gap-3">
          <HourField id={`${id}-start`} label="Start" hintId={`${id}-hours-hint`} value={value.activeHours.start} onChange={(start) => onChange({ ...value, activeHours: { ...value.activeHours, start } })} />
          <HourField id={`${id}-end`} label="End" hintId={`${id}-hours-hint`} value={value.activeHours.end} onChange={(end) => onChange({ ...value, activeHours: { ...value.activeHours, end } })} />
        </div>
      </fieldset>
    </div>
  );
}

/**
 * A time of day as every time in the product is written, 24-hour 'HH:mm'. A text field, not
 * `type="time"`: the browser shows that one in its locale's clock ('12:00 AM' in en-US), beside
 * schedules written '00:00' (docs/decisions/0066). The server checks the form ('must be a time HH:mm').
 */
function HourField({ id, label, hintId, value, onChange }: { id: string; label: string; hintId: string; value: string; onChange(next: string): void }) {
  return (
    <div>
      <label htmlFor={id} className="block text-sm text-slate-700">
        {label}
      </label>
      <input
        id={id}
        type="text"
        inputMode="numeric"
        autoComplete="off"
        spellCheck={false}
        placeholder="HH:mm"
        maxLength={5}
        aria-describedby={hintId}
        value={value}
        onChange={(event) => onChange(event.target.value.trim())}
        className={`${CONTROL} mt-1 tabular-nums`}
      />
    </div>
  );
}
