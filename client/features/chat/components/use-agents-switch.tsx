import { Switch } from 'radix-ui';
import { useId } from 'react';

/** A chat's on/off setting beside the composer or in the header: a labelled switch, with what it does on hover. */
export function ChatSwitch({ label, title, checked, onCheckedChange, disabled }: { label: string; title: string; checked: boolean; onCheckedChange(checked: boolean): void; disabled?: boolean }) {
  const id = useId();
  return (
    <div className="flex items-center gap-2 text-sm text-slate-700" title={title}>
      <Switch.Root
        id={id}
        checked={checked}
        onCheckedChange={onCheckedChange}
        disabled={disabled}
        className="relative inline-flex h-5 w-9 shrink-0 cursor-pointer items-center rounded-full bg-slate-300 transition-colors focus-visible:outline-2 focus-visible:outline-offset-2 focus-visible:outline-brand-600 disabled:cursor-not-allowed disabled:opacity-60 data-[state=checked]:bg-brand-600 motion-reduce:transition-none"
      >
        <Switch.Thumb className="block size-4 translate-x-0.5 rounded-full bg-white shadow transition-transform data-[state=checked]:translate-x-[18px] motion-reduce:transition-none" />
      </Switch.Root>
      <label htmlFor={id}>{label}</label>
    </div>
  );
}

/**
 * "Use my agents" (issue 31, docs/decisions/0076): the chat's assistant may read the owner's
 * agents, runs, alerts and market data, and propose agents or changes. Shown to admins on a
 * model that calls tools; on by default; each chat keeps its own (saved with its settings).
 */
export function UseAgentsSwitch(props: { checked: boolean; onCheckedChange(checked: boolean): void; disabled?: boolean }) {
  return <ChatSwitch label="Use my agents" title="The assistant may read your agents, runs, alerts and market data, and propose agents or changes for you to approve." {...props} />;
}

/**
 * "Search the web" (issue 32, docs/decisions/0081): the answer reads pages found for the question
 * and cites them. Shown when the server has a search engine; off by default; each chat keeps its own.
 */
export function WebSearchSwitch(props: { checked: boolean; onCheckedChange(checked: boolean): void; disabled?: boolean }) {
  return <ChatSwitch label="Search the web" title="The answer searches the web for your question, reads the pages it finds and cites them." {...props} />;
}
