import type { ReactNode } from 'react';
import { CHAT_LIMITS } from '../../../../contracts/chat.ts';

/** The chat dialogs' text fields and selects (chat settings, a project). */
export const FIELD = 'w-full rounded-md border border-slate-300 px-3 py-2 text-sm text-slate-900 focus-visible:outline-2 focus-visible:outline-brand-600';

/**
 * Words sent to the model before a chat's messages (a chat's system prompt, a project's
 * instructions): a labelled, resizable box held to the system prompt's limit, with its hint.
 */
export function PromptField({ id, label, value, onChange, placeholder, hint }: { id: string; label: string; value: string; onChange(value: string): void; placeholder: string; hint: ReactNode }) {
  return (
    <div>
      <label htmlFor={id} className="block text-sm font-medium text-slate-800">
        {label}
      </label>
      <textarea
        id={id}
        value={value}
        onChange={(event) => onChange(event.target.value)}
        maxLength={CHAT_LIMITS.maxSystemPromptChars}
        rows={5}
        aria-describedby={`${id}-hint`}
        placeholder={placeholder}
        className={`${FIELD} mt-1 resize-y`}
      />
      <p id={`${id}-hint`} className="mt-1 text-xs text-slate-600">
        {hint}
      </p>
    </div>
  );
}
