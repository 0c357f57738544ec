import { Switch } from 'radix-ui';
import { useId } from 'react';

/**
 * "Use my agents" (issue 31, docs/decisions/0076): the chat's assistant may read the owner's
 * agents, runs, alerts and market data, and propose agents or changes. Shown to admins on a
 * model that calls tools; on by default; each chat keeps its own (saved with its settings).
 */
export function UseAgentsSwitch({ checked, onCheckedChange, disabled }: { checked: boolean; onCheckedChange(checked: boolean): void; disabled?: boolean }) {
  const id = useId();
  return (
    <div className="flex items-center gap-2 text-sm text-slate-700" title="The assistant may read your agents, runs, alerts and market data, and propose agents or changes for you to approve.">
      <Switch.Root
        id={id}
        checked={checked}
        onCheckedChange={onCheckedChange}
        disabled={disabled}
        className="relative inline-flex h-5 w-9 shrink-0 cursor-pointer items-center rounded-full bg-slate-300 transition-colors focus-visible:outline-2 focus-visible:outline-offset-2 focus-visible:outline-brand-600 disabled:cursor-not-allowed disabled:opacity-60 data-[state=checked]:bg-brand-600 motion-reduce:transition-none"
      >
        <Switch.Thumb className="block size-4 translate-x-0.5 rounded-full bg-white shadow transition-transform data-[state=checked]:translate-x-[18px] motion-reduce:transition-none" />
      </Switch.Root>
      <label htmlFor={id}>Use my agents</label>
    </div>
  );
}
