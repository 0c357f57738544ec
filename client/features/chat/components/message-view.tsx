import { Bot, User } from 'lucide-react';
import { memo } from 'react';
import { mayContinue } from '../../../../contracts/chat.ts';
import type { ChatMessage } from '../lib/chat-storage.ts';
import { LEFT_NOTE, STOPPED_NOTE } from '../lib/chat-text.ts';
import { ChatMarkdown } from './chat-markdown.tsx';
import { LiveAnswerText } from './live-answer-text.tsx';
import { CopyButton } from './copy-button.tsx';
import { AnswerAgain, ContinueAnswer, EditableQuestion, VersionSwitch } from './message-actions.tsx';
import { TextWithSteps } from './tool-steps.tsx';
import { AnswerSources } from './answer-sources.tsx';
import { QuestionDocuments } from './document-attachments.tsx';

type Props = {
  message: ChatMessage;
  assistantLabel: string;
  modelLabel?: string;
  /** Its place among the versions of its turn. */
  index: number;
  count: number;
  /** The last message of the branch in view: it offers Regenerate (or Retry). */
  last: boolean;
};

/**
 * One message. The user's text is shown as typed, with Edit; an answer is Markdown with its
 * model, a copy button, generated images and any note ('(stopped)', why it was cut short or is
 * empty; docs/decisions/0061), and on the last answer Regenerate or Retry, and Continue after one
 * cut at its length limit. A turn with versions has its '2 / 2' switch.
 * Memoised: it renders again only when its own message (a new object) or its props change, so a
 * streamed word renders the answer it belongs to and not the messages before it.
 */
export const MessageView = memo(function MessageView({ message, assistantLabel, modelLabel, index, count, last }: Props) {
  if (message.role === 'user') {
    const shown = message.images ?? [];
    return (
      <EditableQuestion messageId={message.id} content={message.content}>
        {(editButton) => (
          <div className="flex flex-col items-end gap-1">
            {shown.length > 0 && (
              <ul aria-label="Images of this question" className="mr-7 flex max-w-[85%] flex-wrap justify-end gap-2">
                {shown.map((src, i) => (
                  <li key={src}>
                    <a href={src} target="_blank" rel="noopener noreferrer" className="block rounded-lg focus-visible:outline-2 focus-visible:outline-brand-600">
                      <img src={src} alt={`Image ${i + 1} of ${shown.length} with this question`} className="size-24 rounded-lg border border-slate-200 object-cover sm:size-32" loading="lazy" />
                    </a>
                  </li>
                ))}
              </ul>
            )}
            {message.documents?.length ? <QuestionDocuments documents={message.documents} /> : null}
            <div className="flex w-full justify-end">
              {/* A pasted URL or file name breaks at the bubble's edge instead of widening the chat. */}
              <div className="max-w-[85%] min-w-0 rounded-2xl rounded-br-sm bg-brand-600 px-4 py-2.5 whitespace-pre-wrap wrap-anywhere text-white">
                <span className="sr-only">You: </span>
                {message.content}
              </div>
              <User aria-hidden="true" className="mt-2 ml-2 size-5 shrink-0 text-slate-400" />
            </div>
            <div className="mr-7 flex items-center gap-1">
              <VersionSwitch messageId={message.id} index={index} count={count} what="question" />
              {editButton}
              {/* A question left without an answer (the request failed): ask again. */}
              {last && <AnswerAgain questionId={message.id} retry />}
            </div>
          </div>
        )}
      </EditableQuestion>
    );
  }
  const images = message.images ?? [];
  const streaming = message.streaming === true;
  const retry = message.failed === true || message.note !== undefined;
  /** Stopped or left: the person's doing. Cut by a limit or a filter: the provider ended it. Else a failure. */
  const noteTone =
    message.note === STOPPED_NOTE || message.note === LEFT_NOTE
      ? 'text-slate-600'
      : message.finish === 'length' || message.finish === 'content-filter' || message.finish === 'other' || message.finish === 'complete'
        ? 'text-amber-800'
        : 'text-red-700';
  return (
    <div className="flex items-start gap-2" aria-busy={streaming || undefined}>
      <Bot aria-hidden="true" className="mt-2 size-5 shrink-0 text-brand-600" />
      <div className={`max-w-[85%] min-w-0 rounded-2xl rounded-bl-sm border px-4 py-2.5 ${message.failed ? 'border-red-200 bg-red-50 text-red-800' : 'border-slate-200 bg-white'}`}>
        <span className="sr-only">{assistantLabel}: </span>
        <WithSources message={message}>
        {message.failed ? (
          <>
            {message.toolSteps?.length ? <TextWithSteps content="" steps={message.toolSteps} text={() => null} /> : null}
            <p>{message.content}</p>
          </>
        ) : message.toolSteps?.length ? (
          // The tool steps where they happened in the text (issue 31).
          <TextWithSteps
            content={message.content}
            steps={message.toolSteps}
            text={(piece, key) => <ChatMarkdown key={key}>{piece}</ChatMarkdown>}
            tail={streaming ? (from) => <LiveAnswerText id={message.id} fallback={message.content} from={from} /> : undefined}
          />
        ) : streaming ? (
          <LiveAnswerText id={message.id} fallback={message.content} />
        ) : (
          message.content && <ChatMarkdown>{message.content}</ChatMarkdown>
        )}
        </WithSources>
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
        {message.note && <p className={`mt-2 text-sm italic ${noteTone}`}>{message.note}</p>}
        {!streaming && (
          <div className="mt-1 flex flex-wrap items-center gap-x-2 text-xs text-slate-600">
            {!message.failed && <span className="mr-auto">{modelLabel}</span>}
            <VersionSwitch messageId={message.id} index={index} count={count} what="answer" />
            {!message.failed && message.content && <CopyButton text={message.content} label="Copy message" className="text-slate-600 hover:bg-slate-100 hover:text-slate-900" />}
            {last && mayContinue(message) && <ContinueAnswer answerId={message.id} />}
            {last && message.parentId && <AnswerAgain questionId={message.parentId} retry={retry} />}
          </div>
        )}
      </div>
    </div>
  );
});

/** An answer with sources (issue 32): its [n] open them, and they are listed under it. */
function WithSources({ message, children }: { message: ChatMessage; children: React.ReactNode }) {
  if (!message.citations?.length && !message.sourcesNote) return children;
  return (
    <AnswerSources citations={message.citations ?? []} note={message.sourcesNote}>
      {children}
    </AnswerSources>
  );
}
