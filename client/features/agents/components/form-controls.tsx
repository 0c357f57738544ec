import { Switch } from 'radix-ui';
import { useId, type ReactNode } from 'react';

export const CONTROL =
  'w-full rounded-md border border-slate-300 bg-white px-3 py-2 text-sm text-slate-900 focus-visible:outline-2 focus-visible:outline-offset-1 focus-visible:outline-brand-600 disabled:bg-slate-100 disabled:opacity-70 aria-invalid:border-red-700';

/** A labelled on/off switch (Radix: role switch, Space toggles). */
export function SwitchField({ label, hint, checked, onCheckedChange }: { label: string; hint?: ReactNode; checked: boolean; onCheckedChange(checked: boolean): void }) {
  const id = useId();
  return (
    <div className="flex items-start gap-3">
      <Switch.Root
        id={id}
        checked={checked}
        onCheckedChange={onCheckedChange}
        aria-describedby={hint ? `${id}-hint` : undefined}
        className="relative mt-0.5 inline-flex h-6 w-11 shrink-0 cursor-pointer items-center rounded-full bg-slate-300 transition-colors focus-visible:outline-2 focus-visible:outline-offset-2 focus-visible:outline-brand-600 data-[state=checked]:bg-brand-600"
      >
        <Switch.Thumb className="block size-5 translate-x-0.5 rounded-full bg-white shadow transition-transform data-[state=checked]:translate-x-[22px] motion-reduce:transition-none" />
      </Switch.Root>
      <div>
        <label htmlFor={id} className="text-sm font-medium text-slate-900">
          {label}
        </label>
        {hint && (
          <p id={`${id}-hint`} className="text-sm text-slate-600">
            {hint}
          </p>
        )}
      </div>
    </div>
  );
}

/** A definition list row for read-only summaries. */
export function Row({ term, children }: { term: ReactNode; children: ReactNode }) {
  return (
    <div className="flex flex-wrap justify-between gap-x-4 gap-y-1 py-1.5 text-sm">
      <dt className="text-slate-600">{term}</dt>
      <dd className="text-right font-medium break-words text-slate-900">{children}</dd>
    </div>
  );
}
