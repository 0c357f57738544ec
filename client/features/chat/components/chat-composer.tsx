import { Send, Square } from 'lucide-react';
import { memo, useEffect, useId, useLayoutEffect, useRef, useState, type KeyboardEvent } from 'react';
import { CHAT_LIMITS } from '../../../../contracts/chat.ts';
import { Button } from '../../../components/ui/button.tsx';
import type { ChatVariant } from '../lib/chat-variant.ts';

type Props = {
  label: string;
  variant: ChatVariant;
  pending: boolean;
  /** Grok's 'Error: {message}' under the input. */
  inlineError: string | null;
  /** Sends the text; false when it was not sent (the input keeps it). */
  onSend(text: string): boolean;
  onStop(): void;
};

/**
 * The input, Send and (while an answer is pending) Stop. It holds what is being typed, so a
 * keystroke re-renders only this. The input has focus when the screen opens; Stop takes it while
 * an answer is pending, and the input gets it back afterwards.
 */
export const ChatComposer = memo(function ChatComposer({ label, variant, pending, inlineError, onSend, onStop }: Props) {
  const [input, setInput] = useState('');
  const inputId = useId();
  const errorId = useId();
  const inputRef = useRef<HTMLTextAreaElement & HTMLInputElement>(null);
  const stopRef = useRef<HTMLButtonElement>(null);

  // The screen is for typing: the input has focus as soon as it opens (the router gives each
  // assistant its own instance, so this runs once per chat screen).
  useEffect(() => inputRef.current?.focus(), []);

  // In the same commit as the change, so focus is never left on a button that is gone.
  const wasPending = useRef(false);
  useLayoutEffect(() => {
    if (pending) {
      if (document.activeElement === inputRef.current || document.activeElement === document.body) stopRef.current?.focus();
    } else if (wasPending.current && (document.activeElement === stopRef.current || document.activeElement === document.body || document.activeElement === null)) {
      inputRef.current?.focus();
    }
    wasPending.current = pending;
  }, [pending]);

  const send = () => {
    if (onSend(input)) setInput('');
  };

  const onKeyDown = (event: KeyboardEvent<HTMLTextAreaElement>) => {
    if (event.key === 'Enter' && !event.shiftKey && !event.nativeEvent.isComposing) {
      event.preventDefault();
      send();
    }
  };

  const canSend = !pending && input.trim() !== '';
  const fieldClasses = 'min-w-0 flex-1 rounded-lg border border-slate-300 text-slate-900 placeholder:text-slate-500 focus-visible:outline-2 focus-visible:outline-brand-600 disabled:bg-slate-50 disabled:opacity-60';

  return (
    <form
      className="border-t border-slate-200 bg-white px-3 py-3 sm:px-6"
      onSubmit={(event) => {
        event.preventDefault();
        send();
      }}
    >
      <div className="mx-auto flex max-w-3xl items-end gap-2">
        <label htmlFor={inputId} className="sr-only">
          Message {label}
        </label>
        {variant.input === 'line' ? (
          <input
            ref={inputRef}
            id={inputId}
            type="text"
            value={input}
            onChange={(event) => setInput(event.target.value)}
            disabled={pending}
            maxLength={CHAT_LIMITS.maxMessageChars}
            placeholder={variant.placeholder(label)}
            autoComplete="off"
            aria-describedby={inlineError ? errorId : undefined}
            className={`h-11 px-3 ${fieldClasses}`}
          />
        ) : (
          <textarea
            ref={inputRef}
            id={inputId}
            rows={1}
            value={input}
            onChange={(event) => setInput(event.target.value)}
            onKeyDown={onKeyDown}
            disabled={pending}
            maxLength={CHAT_LIMITS.maxMessageChars}
            placeholder={variant.placeholder(label)}
            aria-describedby={inlineError ? errorId : undefined}
            className={`field-sizing-content max-h-48 min-h-11 resize-none px-3 py-2.5 ${fieldClasses}`}
          />
        )}
        {pending && (
          <Button ref={stopRef} variant="outline" size="lg" onClick={onStop} className="px-4">
            <Square aria-hidden="true" className="size-3.5 fill-current" /> Stop
          </Button>
        )}
        <Button type="submit" size="lg" disabled={!canSend} aria-label="Send message" className="px-4">
          <Send aria-hidden="true" />
          <span className="hidden sm:inline">Send</span>
        </Button>
      </div>
      {inlineError && (
        <p id={errorId} role="alert" className="mx-auto mt-2 max-w-3xl text-sm text-red-700">
          Error: {inlineError}
        </p>
      )}
    </form>
  );
});
