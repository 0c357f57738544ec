import { ChevronLeft, ChevronRight, Pencil, RotateCcw, StepForward } from 'lucide-react';
import { createContext, useContext, useId, useState, type KeyboardEvent, type ReactNode } from 'react';
import { CHAT_LIMITS } from '../../../../contracts/chat.ts';
import { Button } from '../../../components/ui/button.tsx';

/**
 * What a message's buttons do (docs/decisions/0048): another version of its turn, a new answer
 * (regenerate, or retry after Stop or an error), an edited question. Given by context: these
 * keep their identity, and whether an answer is pending is a context of its own, read only by
 * the few buttons that show it, so a message starting or ending re-renders those, not every
 * message.
 */
export type ChatActions = {
  answer(questionId: string): boolean;
  /** Goes on from an answer cut at its length limit (docs/decisions/0061). */
  continueAnswer(answerId: string): boolean;
  edit(questionId: string, text: string): boolean;
  switchVersion(messageId: string, step: -1 | 1): void;
};

export const ChatActionsContext = createContext<ChatActions>({ answer: () => false, continueAnswer: () => false, edit: () => false, switchVersion: () => {} });
export const PendingContext = createContext(false);

const ICON_BUTTON =
  'inline-flex size-8 items-center justify-center rounded-md text-slate-600 hover:bg-slate-100 hover:text-slate-900 focus-visible:outline-2 focus-visible:outline-offset-1 focus-visible:outline-brand-600 disabled:cursor-not-allowed disabled:opacity-40';

/** '‹ 2 / 2 ›': the versions of a turn, read out as 'Version 2 of 2'. */
export function VersionSwitch(props: { messageId: string; index: number; count: number; what: 'question' | 'answer' }) {
  return props.count < 2 ? null : <Versions {...props} />;
}

function Versions({ messageId, index, count, what }: { messageId: string; index: number; count: number; what: 'question' | 'answer' }) {
  const { switchVersion } = useContext(ChatActionsContext);
  const pending = useContext(PendingContext);
  return (
    <div role="group" aria-label={`Versions of this ${what}`} className="flex items-center text-xs text-slate-600">
      <button type="button" className={ICON_BUTTON} aria-label={`Previous version of this ${what}`} disabled={pending || index === 0} onClick={() => switchVersion(messageId, -1)}>
        <ChevronLeft aria-hidden="true" className="size-4" />
      </button>
      <span aria-hidden="true" className="min-w-8 text-center tabular-nums">
        {index + 1} / {count}
      </span>
      <span className="sr-only">
        Version {index + 1} of {count}
      </span>
      <button type="button" className={ICON_BUTTON} aria-label={`Next version of this ${what}`} disabled={pending || index === count - 1} onClick={() => switchVersion(messageId, 1)}>
        <ChevronRight aria-hidden="true" className="size-4" />
      </button>
    </div>
  );
}

/** Regenerate the last answer, or Retry one that was stopped or failed (a new version of it). */
export function AnswerAgain({ questionId, retry }: { questionId: string; retry: boolean }) {
  const { answer } = useContext(ChatActionsContext);
  const pending = useContext(PendingContext);
  if (pending) return null;
  return (
    <button type="button" className={retry ? `${ICON_BUTTON} w-auto gap-1 px-2` : ICON_BUTTON} aria-label={retry ? 'Retry' : 'Regenerate answer'} title={retry ? 'Retry' : 'Regenerate answer'} onClick={() => answer(questionId)}>
      <RotateCcw aria-hidden="true" className="size-4" />
      {retry && <span>Retry</span>}
    </button>
  );
}

/** Continue: an answer cut at its length limit asks the assistant to go on from where it stopped. */
export function ContinueAnswer({ answerId }: { answerId: string }) {
  const { continueAnswer } = useContext(ChatActionsContext);
  const pending = useContext(PendingContext);
  if (pending) return null;
  return (
    <button type="button" className={`${ICON_BUTTON} w-auto gap-1 px-2`} title="Ask the assistant to go on from where the answer stopped" onClick={() => continueAnswer(answerId)}>
      <StepForward aria-hidden="true" className="size-4" />
      <span>Continue</span>
    </button>
  );
}

/** A question's Edit button, and the box that replaces the question while it is edited. */
export function EditableQuestion({ messageId, content, children }: { messageId: string; content: string; children: (editButton: ReactNode) => ReactNode }) {
  const { edit } = useContext(ChatActionsContext);
  const [draft, setDraft] = useState<string | null>(null);
  const id = useId();
  if (draft === null) {
    return children(
      <button type="button" className={ICON_BUTTON} aria-label="Edit message" title="Edit message" onClick={() => setDraft(content)}>
        <Pencil aria-hidden="true" className="size-4" />
      </button>,
    );
  }
  const submit = () => {
    if (edit(messageId, draft)) setDraft(null);
  };
  const onKeyDown = (event: KeyboardEvent<HTMLTextAreaElement>) => {
    if (event.key === 'Escape') {
      event.preventDefault();
      setDraft(null);
    } else if (event.key === 'Enter' && !event.shiftKey && !event.nativeEvent.isComposing) {
      event.preventDefault();
      submit();
    }
  };
  return (
    <form
      className="ml-auto flex w-full max-w-[85%] flex-col gap-2"
      onSubmit={(event) => {
        event.preventDefault();
        submit();
      }}
    >
      <label htmlFor={id} className="sr-only">
        Edit message
      </label>
      <textarea
        id={id}
        autoFocus
        value={draft}
        maxLength={CHAT_LIMITS.maxMessageChars}
        onChange={(event) => setDraft(event.target.value)}
        onKeyDown={onKeyDown}
        className="field-sizing-content max-h-72 min-h-20 w-full resize-none rounded-lg border border-slate-300 px-3 py-2 text-slate-900 focus-visible:outline-2 focus-visible:outline-brand-600"
      />
      <div className="flex justify-end gap-2">
        <Button variant="ghost" size="sm" onClick={() => setDraft(null)}>
          Cancel
        </Button>
        <EditSend disabled={draft.trim() === ''} />
      </div>
    </form>
  );
}

/** The edit's Send: disabled while an answer is pending. */
function EditSend({ disabled }: { disabled: boolean }) {
  const pending = useContext(PendingContext);
  return (
    <Button type="submit" size="sm" disabled={pending || disabled}>
      Send
    </Button>
  );
}
