import type { TParameterValue } from '../../../../contracts/agent-parameters.ts';
import { useId } from 'react';
import {
  ACTIVE_DAYS_RULE,
  ACTIVE_HOURS_ORDER,
  MAX_PER_HOUR_DEFAULT,
  MAX_PER_HOUR_MAX,
  MAX_PER_HOUR_MIN,
  MAX_PER_HOUR_RULE,
  type TAgentTemplate,
  type TNotifications,
} from '../../../../contracts/agents.ts';
import { errorsUnder, type TFieldErrors } from '../lib/field-errors.ts';
import { ChannelChoice } from './channel-choice.tsx';
import { FieldErrorList } from './field-error-list.tsx';
import { BRIEF_PATH, ExplainAlertsField } from './explain-alerts-field.tsx';
import { CONTROL, SwitchField } from './form-controls.tsx';
import { ParameterField } from './parameter-field.tsx';
import { ScheduleFields, type TScheduleDraft } from './schedule-fields.tsx';
import { isThresholdPath, ThresholdsEditor } from './thresholds-editor.tsx';

// The configuration's field groups, one component each, used by the wizard and by the details
// dialog's edits alike: the same controls, hints and constraints wherever a setting is changed.

/** The toast's words for a refused save whose problems are shown on their fields. */
export const FIX_MARKED_FIELDS = 'Some settings need a change: see the marked fields.';

export function ScheduleEditor({
  value,
  onChange,
  errors,
  allowUnset,
  timeZone,
}: {
  value: TScheduleDraft;
  onChange(next: TScheduleDraft): void;
  errors: TFieldErrors;
  allowUnset?: boolean;
  /** The zone the active hours are in. */
  timeZone: string;
}) {
  return (
    <div>
      <ScheduleFields value={value} onChange={onChange} allowUnset={allowUnset} timeZone={timeZone} />
      <p className="mt-3 text-sm text-slate-600">{`${ACTIVE_DAYS_RULE}. ${ACTIVE_HOURS_ORDER}.`}</p>
      <FieldErrorList label="Schedule problems" errors={errorsUnder(errors, 'schedule')} />
    </div>
  );
}

export function ParametersFields({
  template,
  value,
  onChange,
  errors,
}: {
  template: TAgentTemplate;
  value: Readonly<Record<string, TParameterValue>>;
  onChange(next: Record<string, TParameterValue>): void;
  errors: TFieldErrors;
}) {
  const definitions = Object.entries(template.defaultConfig.parameters);
  // A key the template does not define (stored before it changed) is named by the server.
  const unknown = errorsUnder(errors, 'parameters').filter(([path]) => !(path.slice('parameters.'.length) in template.defaultConfig.parameters));
  return (
    <div className="space-y-5">
      {definitions.map(([key, definition]) => (
        <ParameterField
          key={key}
          name={key}
          definition={definition}
          value={value[key]}
          error={errors[`parameters.${key}`]}
          onChange={(next) => onChange({ ...value, [key]: next })}
        />
      ))}
      <FieldErrorList label="Parameter problems" errors={unknown} />
    </div>
  );
}

export function NotificationsFields({ value, onChange, errors }: { value: TNotifications; onChange(next: TNotifications): void; errors: TFieldErrors }) {
  return (
    <div className="space-y-5">
      <SwitchField label="Email notifications" hint="Send alerts to your email address." checked={value.email} onCheckedChange={(email) => onChange({ ...value, email })} />
      <SwitchField label="In-app notifications" hint="Show alerts in the app." checked={value.inApp} onCheckedChange={(inApp) => onChange({ ...value, inApp })} />
      <ChannelChoice value={value.channels} onChange={(channels) => onChange({ ...value, channels })} />
      <ExplainAlertsField
        value={value.brief}
        errors={errors}
        onChange={(brief) => {
          const { brief: _off, ...rest } = value;
          onChange(brief ? { ...rest, brief } : rest);
        }}
      />
      <MaxPerHourField value={value.maxPerHour} onChange={(maxPerHour) => onChange({ ...value, maxPerHour })} error={errors[MAX_PER_HOUR_PATH]} />
      <div>
        <ThresholdsEditor value={value.thresholds} onChange={(thresholds) => onChange({ ...value, thresholds })} errors={errors} />
        <FieldErrorList
          label="Notification problems"
          errors={errorsUnder(errors, 'notifications').filter(([path]) => path !== MAX_PER_HOUR_PATH && !path.startsWith(BRIEF_PATH) && !isThresholdPath(path))}
        />
      </div>
    </div>
  );
}

const MAX_PER_HOUR_PATH = 'notifications.maxPerHour';

/** The cap as the summaries show it: '30', or '12 (default)' when the agent has none of its own. */
export const perHourText = (notifications: Pick<TNotifications, 'maxPerHour'>) =>
  notifications.maxPerHour === undefined ? `${MAX_PER_HOUR_DEFAULT} (default)` : String(notifications.maxPerHour);

/**
 * The agent's cap on alert notifications per hour (docs/decisions/0041). Empty means the
 * default, which the placeholder shows; nothing blocks: the server's message shows under it.
 */
export function MaxPerHourField({ value, onChange, error }: { value: number | undefined; onChange(next: number | undefined): void; error?: string }) {
  const id = useId();
  return (
    <div>
      <label htmlFor={id} className="block text-sm font-medium text-slate-900">
        Notifications per hour
      </label>
      <input
        id={id}
        type="number"
        inputMode="numeric"
        min={MAX_PER_HOUR_MIN}
        max={MAX_PER_HOUR_MAX}
        step={1}
        placeholder={String(MAX_PER_HOUR_DEFAULT)}
        value={value ?? ''}
        aria-invalid={error ? true : undefined}
        aria-describedby={error ? `${id}-error ${id}-hint` : `${id}-hint`}
        onChange={(event) => onChange(event.target.value === '' ? undefined : Number(event.target.value))}
        className={`${CONTROL} mt-1 max-w-40`}
      />
      {error && (
        <p id={`${id}-error`} className="mt-1 text-sm font-medium text-red-700">
          {error}
        </p>
      )}
      <p id={`${id}-hint`} className="mt-1 text-sm text-slate-600">
        {`Beyond this many alert notifications in an hour, this agent's alerts are held back and you get one alert storm notice instead; Run History still records every alert. Failing and recovered notices always go out. ${MAX_PER_HOUR_RULE}`}
      </p>
    </div>
  );
}
