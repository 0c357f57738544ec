import { errorLine } from '../lib/field-errors.ts';

/** The element an error summary is focused by, when its fields cannot carry aria-invalid. */
export const FIELD_ERRORS_ATTRIBUTE = 'data-field-errors';
/** What to focus after a refused save: the first field marked invalid, else an error list. */
export const FIRST_INVALID = `[aria-invalid="true"], [${FIELD_ERRORS_ATTRIBUTE}]`;

/** The server's messages for fields this group shows as one list (the schedule's, the channels'). */
export function FieldErrorList({
  errors,
  label,
  line = errorLine,
}: {
  errors: Array<[path: string, message: string]>;
  label: string;
  /** How a message names its item; by default from its path ('Threshold 2: ...'). */
  line?: (path: string, message: string) => string;
}) {
  if (errors.length === 0) return null;
  return (
    <ul aria-label={label} tabIndex={-1} {...{ [FIELD_ERRORS_ATTRIBUTE]: '' }} className="mt-3 space-y-1 text-sm font-medium text-red-700 focus:outline-none">
      {errors.map(([path, message]) => (
        <li key={path}>{line(path, message)}</li>
      ))}
    </ul>
  );
}
