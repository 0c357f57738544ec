import { useId, type ReactNode } from 'react';
import type { FieldError } from 'react-hook-form';

/** What a Field hands its control: the label's target and what describes it. */
export type FieldControlProps = { id: string; 'aria-invalid': boolean; 'aria-describedby'?: string };

/** A labelled control with its hint and its error message (verbatim from the schema) under it,
 * linked by aria-describedby (only to the parts that are shown). */
export function Field({ label, hint, error, children }: { label: string; hint?: ReactNode; error?: FieldError; children(props: FieldControlProps): ReactNode }) {
  const id = useId();
  const describedBy = [error?.message && `${id}-error`, hint && `${id}-hint`].filter(Boolean).join(' ') || undefined;
  return (
    <div>
      <label htmlFor={id} className="block text-sm font-medium text-slate-900">
        {label}
      </label>
      {children({ id, 'aria-invalid': Boolean(error), 'aria-describedby': describedBy })}
      {hint && (
        <p id={`${id}-hint`} className="mt-1 text-sm text-slate-600">
          {hint}
        </p>
      )}
      {error?.message && (
        <p id={`${id}-error`} className="mt-1 text-sm font-medium text-red-700">
          {error.message}
        </p>
      )}
    </div>
  );
}
