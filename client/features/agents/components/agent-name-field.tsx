import type { KeyboardEvent, ReactNode } from 'react';
import { Field } from '../../../components/field.tsx';
import { CONTROL } from './form-controls.tsx';

type Props = { value: string; onChange(next: string): void; hint: ReactNode; error?: string; onKeyDown?(event: KeyboardEvent<HTMLInputElement>): void };

/** 'Agent name': naming a new agent and renaming one in its details. */
export function AgentNameField({ value, onChange, hint, error, onKeyDown }: Props) {
  return (
    <Field label="Agent name" hint={hint} error={error ? { type: 'server', message: error } : undefined}>
      {(props) => (
        <input
          {...props}
          aria-invalid={props['aria-invalid'] || undefined}
          type="text"
          value={value}
          maxLength={100}
          autoComplete="off"
          onChange={(event) => onChange(event.target.value)}
          onKeyDown={onKeyDown}
          className={`${CONTROL} mt-1`}
        />
      )}
    </Field>
  );
}
