import { AlertTriangle, MessageSquare } from 'lucide-react';
import { useEffect, useLayoutEffect, useRef } from 'react';
import type { TChatProviderInfo } from '../../../../contracts/chat.ts';
import type { BranchItem } from '../hooks/use-chat-session.ts';
import type { ChatVariant } from '../lib/chat-variant.ts';
import { MessageView } from './message-view.tsx';

type Props = {
  info: TChatProviderInfo;
  variant: ChatVariant;
  /** The branch in view. */
  branch: readonly BranchItem[];
  streamingId: string | null;
  /** The chat is being read from the server. */
  loading?: boolean;
  pending: boolean;
  configError: boolean;
  modelLabel(id?: string): string | undefined;
};

/**
 * The conversation: the empty state, the messages (a live log), SPEC's 'API Configuration
 * Error' panel where the answer would have been, and the waiting indicator. It follows the
 * answer as it grows unless the reader has scrolled up. Each message is memoised: a streamed
 * word re-renders the answer it belongs to, not the Markdown of every earlier message.
 */
export function MessageList({ info, variant, branch, streamingId, pending, configError, modelLabel, loading = false }: Props) {
  const scrollRef = useRef<HTMLDivElement>(null);
  const atBottom = useRef(true);

  // A message just sent: back to the bottom, whatever the reader had scrolled to.
  const last = branch.at(-1)?.message;
  const lastSent = last?.role === 'user' ? last.id : null;
  useLayoutEffect(() => {
    if (lastSent) atBottom.current = true;
  }, [lastSent]);

  useEffect(() => {
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
      }}
      className="flex-1 overflow-y-auto px-3 py-4 sm:px-6"
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
        <div role="log" aria-live="polite" aria-relevant="additions text" aria-label="Messages" className="flex flex-col gap-4">
          {branch.map(({ message, index, count }, i) => (
            <MessageView
              key={message.id}
              message={message}
              assistantLabel={info.label}
              modelLabel={modelLabel(message.model)}
              index={index}
              count={count}
              last={i === branch.length - 1}
            />
          ))}
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
