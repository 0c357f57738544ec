import { Bot, User } from 'lucide-react';
import { memo } from 'react';
import type { ChatMessage } from '../lib/chat-storage.ts';
import { ChatMarkdown } from './chat-markdown.tsx';
import { CopyButton } from './copy-button.tsx';

type Props = { message: ChatMessage; assistantLabel: string; modelLabel?: string; streaming: boolean };

/** One message. The user's text is shown as typed; an answer is Markdown with its model, a copy
 * button, generated images and any note ('(stopped)', an error that cut it short). Memoised:
 * it renders again only when its own message (a new object) or its props change. */
export const MessageView = memo(function MessageView({ message, assistantLabel, modelLabel, streaming }: Props) {
  if (message.role === 'user') {
    return (
      <div className="flex justify-end">
        {/* A pasted URL or file name breaks at the bubble's edge instead of widening the chat. */}
        <div className="max-w-[85%] min-w-0 rounded-2xl rounded-br-sm bg-brand-600 px-4 py-2.5 whitespace-pre-wrap wrap-anywhere text-white">
          <span className="sr-only">You: </span>
          {message.content}
        </div>
        <User aria-hidden="true" className="mt-2 ml-2 size-5 shrink-0 text-slate-400" />
      </div>
    );
  }
  const images = message.images ?? [];
  return (
    <div className="flex items-start gap-2" aria-busy={streaming || undefined}>
      <Bot aria-hidden="true" className="mt-2 size-5 shrink-0 text-brand-600" />
      <div className={`max-w-[85%] min-w-0 rounded-2xl rounded-bl-sm border px-4 py-2.5 ${message.failed ? 'border-red-200 bg-red-50 text-red-800' : 'border-slate-200 bg-white'}`}>
        <span className="sr-only">{assistantLabel}: </span>
        {message.failed ? <p>{message.content}</p> : message.content && <ChatMarkdown>{message.content}</ChatMarkdown>}
        {images.length > 0 && (
          <div className="mt-2 grid gap-2">
            {images.map((src, i) => (
              <img key={i} src={src} alt="Generated image" className="h-auto max-w-full rounded-lg border border-slate-200" referrerPolicy="no-referrer" />
            ))}
          </div>
        )}
        {message.imagesNotKept ? (
          <p className="mt-2 text-sm text-slate-600 italic">
            {message.imagesNotKept === 1 ? 'A generated image was' : `${message.imagesNotKept} generated images were`} not kept in the saved chat.
          </p>
        ) : null}
        {message.note && <p className={`mt-2 text-sm italic ${message.note === '(stopped)' ? 'text-slate-600' : 'text-red-700'}`}>{message.note}</p>}
        {!streaming && !message.failed && (
          <div className="mt-1 flex items-center justify-between gap-2 text-xs text-slate-600">
            <span>{modelLabel}</span>
            {message.content && <CopyButton text={message.content} label="Copy message" className="-mr-2 text-slate-600 hover:bg-slate-100 hover:text-slate-900" />}
          </div>
        )}
      </div>
    </div>
  );
});
