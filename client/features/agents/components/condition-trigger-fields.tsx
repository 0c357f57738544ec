import { useId, useState } from 'react';
import { COOLDOWN_MINUTES_MAX, durationText, TRIGGER_MODE_LABELS, TRIGGER_MODES, type TTrigger, type TTriggerMode } from '../../../../contracts/conditions.ts';
import type { TFieldErrors } from '../lib/field-errors.ts';
import { instantOfWallTime, wallTimeOf } from '../../../../contracts/time-format.ts';

const CONTROL =
  'rounded-md border border-slate-300 bg-white px-2 py-1.5 text-sm text-slate-900 focus-visible:outline-2 focus-visible:outline-offset-1 focus-visible:outline-brand-600 aria-invalid:border-red-700';

const UNITS = [
  { value: 1, label: 'minutes' },
  { value: 60, label: 'hours' },
  { value: 24 * 60, label: 'days' },
] as const;
/** The largest unit a stored cooldown is a whole number of. */
const unitOf = (minutes: number | undefined) => [...UNITS].reverse().find((u) => minutes !== undefined && minutes > 0 && minutes % u.value === 0)?.value ?? 1;

export const TRIGGER_HINTS: Record<TTriggerMode, string> = {
  once: 'Notifies the first time, then disarms itself until you re-arm it in the details.',
  'once-per-candle': 'Reads the latest candle, closed or still forming; at most one notification per candle.',
  'once-per-close': 'Reads closed candles only; at most one notification per candle.',
};

/**
 * How often a condition may speak: its mode, an optional expiry taken in the owner's zone (named)
 * and stored as an instant, and a cooldown in minutes, hours or days.
 */
export function TriggerFields({
  trigger,
  name,
  path,
  errors,
  timeZone,
  onChange,
}: {
  trigger: TTrigger;
  /** 'Condition 1': what its controls are named by. */
  name: string;
  /** 'conditions.0.trigger'. */
  path: string;
  errors: TFieldErrors;
  timeZone: string;
  onChange(next: TTrigger): void;
}) {
  const id = useId();
  const [unit, setUnit] = useState(() => unitOf(trigger.cooldownMinutes));
  // The expiry as typed: a half-typed date stays in the field until it names an instant.
  const [expiryText, setExpiryText] = useState(() => (trigger.expiresAt ? wallTimeOf(trigger.expiresAt, timeZone) : ''));
  const marked = (field: string, hint?: string) => {
    const error = errors[`${path}.${field}`];
    const described = [error ? `${id}-${field}-error` : null, hint].filter(Boolean).join(' ');
    return { 'aria-invalid': error ? (true as const) : undefined, 'aria-describedby': described || undefined };
  };
  const error = (field: string) =>
    errors[`${path}.${field}`] && (
      <p id={`${id}-${field}-error`} className="mt-1 text-sm font-medium text-red-700">
        {errors[`${path}.${field}`]}
      </p>
    );
  const set = (patch: Partial<TTrigger>) => {
    const next = { ...trigger, ...patch };
    for (const key of ['expiresAt', 'cooldownMinutes'] as const) if (next[key] === undefined) delete next[key];
    onChange(next);
  };
  const cooldown = trigger.cooldownMinutes;
  return (
    <fieldset className="mt-3 grid gap-3 border-t border-slate-200 pt-3 sm:grid-cols-3">
      <legend className="sr-only">{`${name}: trigger`}</legend>
      <div>
        <label htmlFor={`${id}-mode`} className="block text-sm font-medium text-slate-900">
          Notify
        </label>
        <select
          id={`${id}-mode`}
          aria-label={`${name}: trigger`}
          {...marked('mode', `${id}-mode-hint`)}
          value={trigger.mode}
          onChange={(event) => set({ mode: event.target.value as TTriggerMode })}
          className={`${CONTROL} mt-1 w-full`}
        >
          {TRIGGER_MODES.map((mode) => (
            <option key={mode} value={mode}>
              {TRIGGER_MODE_LABELS[mode]}
            </option>
          ))}
        </select>
        {error('mode')}
        <p id={`${id}-mode-hint`} className="mt-1 text-xs text-slate-600">
          {TRIGGER_HINTS[trigger.mode]}
        </p>
      </div>
      <div>
        <label htmlFor={`${id}-expiry`} className="block text-sm font-medium text-slate-900">
          Expires (optional)
        </label>
        <input
          id={`${id}-expiry`}
          type="datetime-local"
          aria-label={`${name}: expires`}
          {...marked('expiresAt', `${id}-expiry-hint`)}
          value={expiryText}
          onChange={(event) => {
            setExpiryText(event.target.value);
            const at = event.target.value === '' ? undefined : (instantOfWallTime(event.target.value, timeZone)?.toISOString() ?? null);
            if (at !== null) set({ expiresAt: at });
          }}
          className={`${CONTROL} mt-1 w-full`}
        />
        {error('expiresAt')}
        <p id={`${id}-expiry-hint`} className="mt-1 text-xs text-slate-600">
          {`In ${timeZone}. Empty: never expires.`}
        </p>
      </div>
      <div>
        <label htmlFor={`${id}-cooldown`} className="block text-sm font-medium text-slate-900">
          Cooldown (optional)
        </label>
        <div className="mt-1 flex gap-2">
          <input
            id={`${id}-cooldown`}
            type="number"
            min={0}
            step="any"
            aria-label={`${name}: cooldown`}
            {...marked('cooldownMinutes', `${id}-cooldown-hint`)}
            value={cooldown === undefined || !Number.isFinite(cooldown) ? '' : cooldown / unit}
            onChange={(event) => set({ cooldownMinutes: event.target.value === '' ? undefined : Math.round(Number(event.target.value) * unit * 1000) / 1000 })}
            className={`${CONTROL} w-24 min-w-0`}
          />
          <select
            aria-label={`${name}: cooldown unit`}
            value={unit}
            onChange={(event) => {
              const next = Number(event.target.value);
              setUnit(next);
              // The number stays as typed, in the new unit.
              if (cooldown !== undefined && Number.isFinite(cooldown)) set({ cooldownMinutes: (cooldown / unit) * next });
            }}
            className={CONTROL}
          >
            {UNITS.map((u) => (
              <option key={u.value} value={u.value}>
                {u.label}
              </option>
            ))}
          </select>
        </div>
        {error('cooldownMinutes')}
        <p id={`${id}-cooldown-hint`} className="mt-1 text-xs text-slate-600">
          {`Least time between two notifications of this condition, up to ${durationText(COOLDOWN_MINUTES_MAX)}.`}
        </p>
      </div>
    </fieldset>
  );
}
