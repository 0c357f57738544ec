import { AlertTriangle, MessageSquare } from 'lucide-react';
import { useCallback, useLayoutEffect, useMemo, useRef, useState } from 'react';
import type { TChatProviderInfo } from '../../../../contracts/chat.ts';
import type { BranchItem } from '../hooks/use-chat-session.ts';
import type { ChatVariant } from '../lib/chat-variant.ts';
import type { LiveAnswerStore } from '../lib/live-answer.ts';
import { LiveAnswerContext } from './live-answer-text.tsx';
import { MessageView } from './message-view.tsx';

type Props = {
  info: TChatProviderInfo;
  variant: ChatVariant;
  /** The branch in view. */
  branch: readonly BranchItem[];
  streamingId: string | null;
  /** The chat is being read from the server. */
  loading?: boolean;
  /** The words of the answer being streamed. */
  live?: LiveAnswerStore | null;
  pending: boolean;
  configError: boolean;
  modelLabel(id?: string): string | undefined;
};

/**
 * The conversation: the empty state, the messages (a live log), SPEC's 'API Configuration
 * Error' panel where the answer would have been, and the waiting indicator. It follows the
 * answer as it grows unless the reader has scrolled up. A streamed word renders only the
 * answer's own text (LiveAnswerText); the list renders when a message is added or ends, and
 * then each message is memoised, so the Markdown of earlier messages is not parsed again.
 */
/** Messages rendered at first, and added each time the reader asks for earlier ones. */
export const MESSAGES_PAGE = 60;

export function MessageList({ info, variant, branch, streamingId, pending, configError, modelLabel, loading = false, live = null }: Props) {
  const scrollRef = useRef<HTMLDivElement>(null);
  const atBottom = useRef(true);

  // A long chat renders its last 60 messages, and 60 more each time the reader scrolls to the top
  // (or asks): the page stays as light as a short chat's, whatever its length. Search on the
  // server finds what is not shown.
  const [shown, setShown] = useState(MESSAGES_PAGE);
  const hidden = Math.max(0, branch.length - shown);
  const visible = hidden > 0 ? branch.slice(hidden) : branch;
  const heightBefore = useRef<number | null>(null);
  const showEarlier = () => {
    if (hidden === 0) return;
    heightBefore.current = scrollRef.current?.scrollHeight ?? null;
    setShown((n) => n + MESSAGES_PAGE);
  };
  // The messages added above keep the ones in view where they were.
  useLayoutEffect(() => {
    const el = scrollRef.current;
    if (el && heightBefore.current !== null) el.scrollTop += el.scrollHeight - heightBefore.current;
    heightBefore.current = null;
  }, [shown]);

  const follow = useCallback(() => {
    const el = scrollRef.current;
    if (el && atBottom.current) el.scrollTop = el.scrollHeight;
  }, []);
  const liveContext = useMemo(() => ({ store: live, follow }), [live, follow]);

  // A message just sent: back to the bottom, whatever the reader had scrolled to.
  const last = branch.at(-1)?.message;
  const lastSent = last?.role === 'user' ? last.id : null;
  useLayoutEffect(() => {
    if (lastSent) atBottom.current = true;
  }, [lastSent]);

  // In the commit that grew the answer, so the frame lays it out once, already scrolled.
  useLayoutEffect(() => {
    const el = scrollRef.current;
    if (el && atBottom.current) el.scrollTop = el.scrollHeight;
  }, [branch, pending]);

  const waiting = pending && streamingId === null;
  return (
    <div
      ref={scrollRef}
      onScroll={(event) => {
        const el = event.currentTarget;
        atBottom.current = el.scrollHeight - el.scrollTop - el.clientHeight < 80;
        if (el.scrollTop < 200 && hidden > 0 && heightBefore.current === null) showEarlier();
      }}
      className="flex-1 overflow-y-auto px-3 py-4 will-change-scroll sm:px-6"
    >
      <div className="mx-auto flex max-w-3xl flex-col gap-4">
        {loading && (
          <p role="status" className="py-16 text-center text-slate-600">
            Loading chat...
          </p>
        )}
        {branch.length === 0 && !configError && !loading ? (
          <div className="flex flex-col items-center justify-center py-16 text-center text-slate-600">
            <MessageSquare aria-hidden="true" className="size-10 text-slate-300" />
            <p className="mt-3 text-lg font-medium text-slate-700">{info.emptyState}</p>
          </div>
        ) : null}
        {hidden > 0 && (
          <button type="button" onClick={showEarlier} className="self-center rounded-md px-3 py-1.5 text-sm font-medium text-brand-700 hover:bg-brand-50 focus-visible:outline-2 focus-visible:outline-brand-600">
            Show earlier messages ({hidden.toLocaleString('en-US')} more)
          </button>
        )}
        <div role="log" aria-live="polite" aria-relevant="additions text" aria-label="Messages" className="space-y-4">
          <LiveAnswerContext.Provider value={liveContext}>
            {visible.map(({ message, index, count }, i) => (
              // Contained: a change inside one message does not lay out the others.
              <div key={message.id} className="[contain:content]">
                <MessageView
                  message={message}
                  assistantLabel={info.label}
                  modelLabel={modelLabel(message.model)}
                  index={index}
                  count={count}
                  last={i === visible.length - 1}
                />
              </div>
            ))}
          </LiveAnswerContext.Provider>
        </div>
        {/* Where the answer would have been: below the message that asked for it. */}
        {configError && (
          <div role="alert" className="rounded-lg border border-amber-300 bg-amber-50 p-4 text-amber-900">
            <h2 className="flex items-center gap-2 font-semibold">
              <AlertTriangle aria-hidden="true" className="size-5" /> API Configuration Error
            </h2>
            <p className="mt-2">{info.missingKeyMessage}</p>
            <p className="mt-1 text-sm">
              The administrator must set up the API key for this assistant on the server
              {info.keyVariable ? ` (${info.keyVariable})` : ''} before it can answer.
            </p>
          </div>
        )}
        {waiting &&
          (variant.waiting === 'thinking' ? (
            <p role="status" className="text-sm text-slate-600 italic">
              Thinking...
            </p>
          ) : (
            <p role="status" className="flex items-center gap-1 pl-7 text-slate-500">
              <span className="sr-only">Waiting for the answer</span>
              {[0, 1, 2].map((i) => (
                <span key={i} aria-hidden="true" className="size-2 animate-bounce rounded-full bg-slate-400 motion-reduce:animate-none" style={{ animationDelay: `${i * 150}ms` }} />
              ))}
            </p>
          ))}
      </div>
    </div>
  );
}
