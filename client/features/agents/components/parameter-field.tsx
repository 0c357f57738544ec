import { Slider, Switch } from 'radix-ui';
import { X } from 'lucide-react';
import { useId } from 'react';
import { MISSING_SOURCE_NOTES, optionLabel, parameterRule, type TParameterDefinition, type TParameterValue } from '../../../../contracts/agent-parameters.ts';
import { serverSources } from '../lib/server-sources.ts';
import { CONTROL } from './form-controls.tsx';

export const TOKEN_PLACEHOLDER = 'Enter token symbol (e.g. BTC, ETH)';

type Props = {
  name: string;
  definition: TParameterDefinition;
  value: TParameterValue | undefined;
  onChange(value: TParameterValue): void;
  /** The server's message when it refused this value. */
  error?: string;
};

/** One wizard field per parameter type. Required ones carry an asterisk; nothing blocks (SPEC):
 * the hint states the rule, and the server's message shows under the field when it refuses. */
export function ParameterField({ name, definition, value, onChange, error }: Props) {
  const id = useId();
  const hintId = `${id}-hint`;
  const errorId = `${id}-error`;
  const describedBy = error ? `${errorId} ${hintId}` : hintId;
  const common = { id, 'aria-describedby': describedBy, 'aria-required': definition.required || undefined, 'aria-invalid': error ? true : undefined };
  const rule = parameterRule(definition);
  const label = (
    <label htmlFor={id} className="block text-sm font-medium text-slate-900">
      {definition.label}
      {definition.required && (
        <span aria-hidden="true" className="ml-0.5 text-red-700">
          *
        </span>
      )}
    </label>
  );
  // A switch needing a source this server lacks says so: it starts off, and on it reports 'not configured'.
  const missing = definition.needs !== undefined && !serverSources()[definition.needs] ? MISSING_SOURCE_NOTES[definition.needs] : null;
  const hintText = [definition.description, rule, missing].filter((part) => part !== null).join(' ');
  const errorText = error && (
    <p id={errorId} className="mt-1 text-sm font-medium text-red-700">
      {error}
    </p>
  );
  const hint = (
    <>
      {errorText}
      <p id={hintId} className="mt-1 text-sm text-slate-600">
        {hintText}
      </p>
    </>
  );
  const v = definition.validation ?? {};
  // Closed options (FTX) stay visible but cannot be chosen, with the reason beside them.
  const renderOption = (option: string) => (
    <option key={option} value={option} disabled={option in (v.disabledOptions ?? {})}>
      {optionLabel(definition, option)}
      {v.disabledOptions?.[option] ? ` (${v.disabledOptions[option]})` : ''}
    </option>
  );

  switch (definition.type) {
    case 'string':
      return (
        <div>
          {label}
          <input
            {...common}
            type="text"
            value={String(value ?? '')}
            placeholder={name === 'token' ? TOKEN_PLACEHOLDER : undefined}
            onChange={(event) => onChange(name === 'token' ? event.target.value.toUpperCase() : event.target.value)}
            className={`${CONTROL} mt-1`}
          />
          {hint}
        </div>
      );
    case 'textarea':
      return (
        <div>
          {label}
          <textarea {...common} rows={3} value={String(value ?? '')} onChange={(event) => onChange(event.target.value)} className={`${CONTROL} mt-1`} />
          {hint}
        </div>
      );
    case 'number':
      return (
        <div>
          {label}
          <input
            {...common}
            type="number"
            min={v.min}
            max={v.max}
            step={v.step ?? 1}
            value={typeof value === 'number' ? value : ''}
            onChange={(event) => onChange(event.target.value === '' ? '' : Number(event.target.value))}
            className={`${CONTROL} mt-1`}
          />
          {hint}
        </div>
      );
    case 'boolean':
      return (
        <div className="flex items-start gap-3">
          <Switch.Root
            {...common}
            checked={value === true}
            onCheckedChange={onChange}
            className="relative mt-0.5 inline-flex h-6 w-11 shrink-0 cursor-pointer items-center rounded-full bg-slate-300 transition-colors focus-visible:outline-2 focus-visible:outline-offset-2 focus-visible:outline-brand-600 data-[state=checked]:bg-brand-600"
          >
            <Switch.Thumb className="block size-5 translate-x-0.5 rounded-full bg-white shadow transition-transform data-[state=checked]:translate-x-[22px] motion-reduce:transition-none" />
          </Switch.Root>
          <div>
            {label}
            {errorText}
            <p id={hintId} className="text-sm text-slate-600">
              {hintText}
            </p>
          </div>
        </div>
      );
    case 'select':
      return (
        <div>
          {label}
          <select {...common} value={String(value ?? '')} onChange={(event) => onChange(event.target.value)} className={`${CONTROL} mt-1`}>
            {(v.options ?? []).map(renderOption)}
          </select>
          {hint}
        </div>
      );
    case 'multi-select': {
      const chosen = Array.isArray(value) ? value : [];
      const remaining = (v.options ?? []).filter((option) => !chosen.includes(option));
      return (
        <div>
          {label}
          {chosen.length > 0 ? (
            <ul aria-label={`Selected ${definition.label.toLowerCase()}`} className="mt-2 flex flex-wrap gap-2">
              {chosen.map((option) => (
                <li key={option} className="inline-flex items-center gap-1 rounded-full bg-brand-50 py-0.5 pr-1 pl-3 text-sm text-brand-800">
                  {optionLabel(definition, option)}
                  <button
                    type="button"
                    aria-label={`Remove ${optionLabel(definition, option)}`}
                    onClick={() => onChange(chosen.filter((c) => c !== option))}
                    className="rounded-full p-0.5 hover:bg-brand-100 focus-visible:outline-2 focus-visible:outline-brand-600"
                  >
                    <X aria-hidden="true" className="size-3.5" />
                  </button>
                </li>
              ))}
            </ul>
          ) : (
            <p className="mt-2 text-sm text-slate-600">None selected</p>
          )}
          <select
            {...common}
            value=""
            disabled={remaining.length === 0}
            onChange={(event) => event.target.value && onChange([...chosen, event.target.value])}
            className={`${CONTROL} mt-2`}
          >
            <option value="">{remaining.length ? 'Add an option…' : 'All options selected'}</option>
            {remaining.map(renderOption)}
          </select>
          {hint}
        </div>
      );
    }
    case 'slider': {
      const min = v.min ?? 0;
      const max = v.max ?? 100;
      const step = v.step ?? 1;
      const current = typeof value === 'number' ? value : min;
      return (
        <div>
          <div className="flex items-center justify-between">
            <span id={`${id}-label`} className="block text-sm font-medium text-slate-900">
              {definition.label}
              {definition.required && (
                <span aria-hidden="true" className="ml-0.5 text-red-700">
                  *
                </span>
              )}
            </span>
            <output htmlFor={id} aria-live="polite" className="text-sm font-semibold text-slate-900">
              {current}
            </output>
          </div>
          <Slider.Root
            value={[current]}
            min={min}
            max={max}
            step={step}
            onValueChange={([next]) => next !== undefined && onChange(next)}
            className="relative mt-3 flex h-5 w-full touch-none items-center select-none"
          >
            <Slider.Track className="relative h-1.5 grow rounded-full bg-slate-200">
              <Slider.Range className="absolute h-full rounded-full bg-brand-600" />
            </Slider.Track>
            <Slider.Thumb
              id={id}
              aria-labelledby={`${id}-label`}
              aria-describedby={describedBy}
              aria-invalid={error ? true : undefined}
              className="block size-5 rounded-full border-2 border-brand-600 bg-white shadow focus-visible:outline-2 focus-visible:outline-offset-2 focus-visible:outline-brand-600"
            />
          </Slider.Root>
          <div aria-hidden="true" className="mt-1 flex justify-between text-xs text-slate-500">
            <span>{min}</span>
            <span>{max}</span>
          </div>
          {hint}
        </div>
      );
    }
    default:
      return (
        <div>
          <p className="text-sm font-medium text-slate-900">{definition.label}</p>
          <p className="mt-1 text-sm text-red-700">Unsupported parameter type</p>
        </div>
      );
  }
}
