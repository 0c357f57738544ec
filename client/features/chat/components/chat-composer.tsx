import { FilePlus, ImagePlus, Send, Square } from 'lucide-react';
import { memo, useEffect, useId, useLayoutEffect, useRef, useState, type ClipboardEvent, type DragEvent, type KeyboardEvent } from 'react';
import { CHAT_LIMITS, type TChatModel } from '../../../../contracts/chat.ts';
import { Button } from '../../../components/ui/button.tsx';
import { noVisionReason, useAttachments } from '../hooks/use-attachments.ts';
import type { ChatVariant } from '../lib/chat-variant.ts';
import { ImageAttachments } from './image-attachments.tsx';
import { DOCUMENT_ACCEPT } from '../../../../contracts/documents.ts';
import { useDocumentAttachments } from '../hooks/use-document-attachments.ts';
import type { QuestionDocument } from '../lib/chat-storage.ts';
import { DocumentAttachments } from './document-attachments.tsx';

type Props = {
  label: string;
  variant: ChatVariant;
  /** The model the question goes to: whether (and which) images it takes. */
  model: TChatModel | undefined;
  pending: boolean;
  /** Grok's 'Error: {message}' under the input. */
  inlineError: string | null;
  /** Sends the text, the attached images (our URLs) and documents (issue 32); false when it was not sent (the input keeps it). */
  onSend(text: string, images: readonly string[], documents: readonly QuestionDocument[]): boolean;
  /** Beside the buttons: the chat's switches ("Search the web", issue 32). */
  extra?: React.ReactNode;
  onStop(): void;
};

const isImage = (f: File) => f.type.startsWith('image/');
/** Pasted or dropped files: images go with the images, anything else is a document (issue 32; the server reads its type from its bytes). */
const split = (files: FileList | null | undefined) => ({ images: [...(files ?? [])].filter(isImage), documents: [...(files ?? [])].filter((f) => !isImage(f)) });

/**
 * The input, images (pick, paste, drop; docs/decisions/0055), Send and (while an answer is
 * pending) Stop. It holds what is being typed, so a keystroke re-renders only this. The input has
 * focus when the screen opens; Stop takes it while an answer is pending, and the input gets it
 * back afterwards.
 */
export const ChatComposer = memo(function ChatComposer({ label, variant, model, pending, inlineError, onSend, onStop, extra }: Props) {
  const [input, setInput] = useState('');
  const inputId = useId();
  const errorId = useId();
  const hintId = useId();
  const fileRef = useRef<HTMLInputElement>(null);
  const attachments = useAttachments(model);
  const documents = useDocumentAttachments();
  const documentRef = useRef<HTMLInputElement>(null);
  const [dragging, setDragging] = useState(false);
  const [refusal, setRefusal] = useState<string | null>(null);
  const vision = model?.vision;
  const visionReason = noVisionReason(model);
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
    if (attachments.uploading || attachments.blocked || documents.uploading || documents.blocked) return;
    if (onSend(input, attachments.urls(), documents.documents())) {
      setInput('');
      attachments.clear();
      documents.clear();
      setRefusal(null);
    }
  };

  const attach = (files: File[]) => {
    setRefusal(null);
    attachments.add(files);
  };
  const pick = () => {
    if (visionReason) return setRefusal(visionReason);
    fileRef.current?.click();
  };
  const attachAll = (files: FileList | null | undefined) => {
    const { images, documents: others } = split(files);
    if (images.length > 0) attach(images);
    if (others.length > 0) documents.add(others);
  };
  const onPaste = (event: ClipboardEvent<HTMLElement>) => {
    if (event.clipboardData.files.length === 0) return;
    event.preventDefault();
    attachAll(event.clipboardData.files);
  };
  const carriesFiles = (event: DragEvent) => [...event.dataTransfer.types].includes('Files');
  const onDragOver = (event: DragEvent<HTMLFormElement>) => {
    if (!carriesFiles(event) || pending) return;
    event.preventDefault();
    event.dataTransfer.dropEffect = 'copy';
    setDragging(true);
  };
  const onDrop = (event: DragEvent<HTMLFormElement>) => {
    setDragging(false);
    if (!carriesFiles(event) || pending) return;
    event.preventDefault();
    attachAll(event.dataTransfer.files);
  };
  const note = refusal ?? attachments.problem ?? attachments.blocked ?? documents.problem ?? documents.blocked;

  const onKeyDown = (event: KeyboardEvent<HTMLTextAreaElement>) => {
    if (event.key === 'Enter' && !event.shiftKey && !event.nativeEvent.isComposing) {
      event.preventDefault();
      send();
    }
  };

  const canSend = !pending && input.trim() !== '' && !attachments.uploading && !attachments.blocked && !documents.uploading && !documents.blocked;
  const describedBy = [inlineError ? errorId : null, note ? hintId : null].filter(Boolean).join(' ') || undefined;
  const fieldClasses = 'min-w-0 flex-1 rounded-lg border border-slate-300 text-slate-900 placeholder:text-slate-500 focus-visible:outline-2 focus-visible:outline-brand-600 disabled:bg-slate-50 disabled:opacity-60';

  return (
    <form
      className={`border-t border-slate-200 bg-white px-3 py-3 sm:px-6 ${dragging ? 'outline-2 -outline-offset-4 outline-brand-600 outline-dashed' : ''}`}
      onSubmit={(event) => {
        event.preventDefault();
        send();
      }}
      onDragOver={onDragOver}
      onDragLeave={() => setDragging(false)}
      onDrop={onDrop}
    >
      <ImageAttachments items={attachments.items} onRemove={attachments.remove} disabled={pending} />
      <DocumentAttachments items={documents.items} onRemove={documents.remove} disabled={pending} />
      {extra && <div className="mx-auto mb-2 flex max-w-3xl flex-wrap items-center gap-x-4 gap-y-1">{extra}</div>}
      <div className="mx-auto flex max-w-3xl items-end gap-2">
        <input
          ref={fileRef}
          type="file"
          hidden
          multiple
          accept={(vision ?? []).join(',')}
          onChange={(event) => {
            attach([...(event.target.files ?? [])]);
            event.target.value = '';
          }}
        />
        <Button
          variant="ghost"
          size="icon"
          onClick={pick}
          disabled={pending}
          aria-disabled={visionReason ? true : undefined}
          aria-label="Attach images"
          aria-describedby={visionReason ? hintId : undefined}
          title={visionReason ?? 'Attach images (or paste or drop them here)'}
          className={`h-11 ${visionReason ? 'opacity-60' : ''}`}
        >
          <ImagePlus aria-hidden="true" className="size-5" />
        </Button>
        <input
          ref={documentRef}
          type="file"
          hidden
          multiple
          accept={DOCUMENT_ACCEPT}
          onChange={(event) => {
            documents.add([...(event.target.files ?? [])]);
            event.target.value = '';
          }}
        />
        <Button
          variant="ghost"
          size="icon"
          onClick={() => documentRef.current?.click()}
          disabled={pending}
          aria-label="Attach documents"
          title="Attach documents: PDF, Word, Excel, CSV, Markdown, text or HTML (or paste or drop them here)"
          className="h-11"
        >
          <FilePlus aria-hidden="true" className="size-5" />
        </Button>
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
            onPaste={onPaste}
            disabled={pending}
            maxLength={CHAT_LIMITS.maxMessageChars}
            placeholder={variant.placeholder(label)}
            autoComplete="off"
            aria-describedby={describedBy}
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
            onPaste={onPaste}
            disabled={pending}
            maxLength={CHAT_LIMITS.maxMessageChars}
            placeholder={variant.placeholder(label)}
            aria-describedby={describedBy}
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
      <p id={hintId} aria-live="polite" className="mx-auto mt-1 max-w-3xl text-sm text-slate-700 empty:hidden">
        {note ?? (attachments.uploading ? 'Uploading images…' : documents.uploading ? 'Uploading documents…' : '')}
      </p>
    </form>
  );
});
