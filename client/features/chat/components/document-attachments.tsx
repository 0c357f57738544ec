import { AlertCircle, FileText, LoaderCircle, X } from 'lucide-react';
import { DOCUMENT_TYPE_NAMES, noTextNote } from '../../../../contracts/documents.ts';
import type { DocumentAttachment } from '../hooks/use-document-attachments.ts';
import type { QuestionDocument } from '../lib/chat-storage.ts';

/** What a chip says of a document's state: nothing when it is ready to read. */
function stateOf(status: QuestionDocument['status'], error: string | null | undefined): string | null {
  if (status === 'no-text') return 'No text to read';
  if (status === 'failed') return error ? `Not read: ${error}` : 'Could not be read';
  return null;
}

/**
 * The documents attached to the question being written (issue 32): a chip each with its name,
 * type and state, and a button to take it off. A file the server refused says why in its words;
 * one without text (a scanned PDF) says so, since the answer cannot use it.
 */
export function DocumentAttachments({ items, onRemove, disabled }: { items: readonly DocumentAttachment[]; onRemove(key: string): void; disabled: boolean }) {
  if (items.length === 0) return null;
  return (
    <ul aria-label="Documents for this question" className="mx-auto mb-2 flex max-w-3xl flex-wrap gap-2">
      {items.map((item, i) => {
        const doc = item.document;
        const problem = item.status === 'refused' ? item.error : doc ? stateOf(doc.status, doc.error) : null;
        const bad = item.status === 'refused' || doc?.status === 'failed';
        const warn = doc?.status === 'no-text';
        return (
          <li
            key={item.key}
            className={`relative flex max-w-full min-w-0 items-start gap-2 rounded-lg border py-1.5 pr-9 pl-2 text-xs leading-snug sm:max-w-72 ${
              bad ? 'border-red-300 bg-red-50 text-red-900' : warn ? 'border-amber-300 bg-amber-50 text-amber-900' : 'border-slate-300 bg-slate-50 text-slate-800'
            }`}
          >
            {item.status === 'uploading' ? (
              <LoaderCircle aria-hidden="true" className="mt-0.5 size-4 shrink-0 animate-spin" />
            ) : bad || warn ? (
              <AlertCircle aria-hidden="true" className="mt-0.5 size-4 shrink-0" />
            ) : (
              <FileText aria-hidden="true" className="mt-0.5 size-4 shrink-0" />
            )}
            <div className="min-w-0" {...(problem ? { role: 'alert' } : {})}>
              <p className="font-semibold break-words">{item.name}</p>
              <p className="mt-0.5 break-words">
                {item.status === 'uploading' ? 'Uploading…' : doc ? DOCUMENT_TYPE_NAMES[doc.type] : 'Not uploaded'}
                {problem ? ` · ${problem}` : ''}
              </p>
            </div>
            <button
              type="button"
              onClick={() => onRemove(item.key)}
              disabled={disabled}
              aria-label={`Remove document ${i + 1}: ${item.name}`}
              className="absolute top-1 right-1 inline-flex size-6 items-center justify-center rounded-full text-current hover:bg-slate-900/10 focus-visible:outline-2 focus-visible:outline-brand-600 disabled:opacity-60"
            >
              <X aria-hidden="true" className="size-3.5" />
            </button>
          </li>
        );
      })}
    </ul>
  );
}

/** The documents a sent question carried, as chips: each file's name, or "Removed file" once it was deleted. */
export function QuestionDocuments({ documents }: { documents: readonly QuestionDocument[] }) {
  const noText = documents.filter((d) => d.status === 'no-text').map((d) => d.name ?? 'A document');
  return (
    <div className="mr-7 flex max-w-[85%] flex-col items-end gap-1">
      <ul aria-label="Documents of this question" className="flex flex-wrap justify-end gap-2">
        {documents.map((d, i) => (
          <li key={d.id} className="flex max-w-full min-w-0 items-center gap-1.5 rounded-lg border border-slate-200 bg-white px-2 py-1 text-xs text-slate-700">
            <FileText aria-hidden="true" className="size-3.5 shrink-0 text-slate-500" />
            {d.removed ? <span className="min-w-0 text-slate-500 italic">Removed file</span> : <span className="min-w-0 break-words">{d.name ?? `Document ${i + 1}`}</span>}
            {d.type && <span className="text-slate-500">· {DOCUMENT_TYPE_NAMES[d.type]}</span>}
          </li>
        ))}
      </ul>
      {noText.length > 0 && <p className="text-xs text-amber-800">{noTextNote(noText)}</p>}
    </div>
  );
}
