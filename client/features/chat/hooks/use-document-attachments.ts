import { useCallback, useEffect, useLayoutEffect, useRef, useState } from 'react';
import { DOCUMENT_LIMITS, type TDocument } from '../../../../contracts/documents.ts';
import { deleteDocument, uploadDocument } from '../api/chat-api.ts';
import type { QuestionDocument } from '../lib/chat-storage.ts';
import { uploadRefusal } from './use-attachments.ts';

/** A document attached to the question being written (issue 32): uploading, then as the server read it, or why it could not. */
export type DocumentAttachment = { key: string; name: string; status: 'uploading' | 'uploaded' | 'refused'; document?: TDocument; error?: string };

export type DocumentAttachments = {
  items: DocumentAttachment[];
  /** Picked, pasted or dropped files: each uploaded (the server reads its type from its bytes and says why it refuses one). */
  add(files: readonly File[]): void;
  /** Takes one off (and deletes it on the server: it was never sent). */
  remove(key: string): void;
  /** After sending: the documents now belong to the question. */
  clear(): void;
  /** Why the last files were refused here, in a sentence. */
  problem: string | null;
  /** Why the question cannot be sent with these documents, or null. */
  blocked: string | null;
  uploading: boolean;
  /** The uploaded documents (a file without text goes too: the answer says so). */
  documents(): QuestionDocument[];
};

/**
 * The documents of the question being written, beside its images: uploaded at once, shown as
 * chips with name, type and state, removable. One never sent is deleted on the server when
 * removed (else after a day, like images).
 */
export function useDocumentAttachments(): DocumentAttachments {
  const [items, setItems] = useState<DocumentAttachment[]>([]);
  const [problem, setProblem] = useState<string | null>(null);
  const count = useRef(0);
  const current = useRef(items);
  useLayoutEffect(() => {
    current.current = items;
  });
  // Leaving the screen with documents attached: they were never sent.
  useEffect(() => () => current.current.forEach((item) => item.document && void deleteDocument(item.document.id).catch(() => {})), []);

  const patch = (key: string, fields: Partial<DocumentAttachment>) => setItems((list) => list.map((item) => (item.key === key ? { ...item, ...fields } : item)));

  const add = useCallback((files: readonly File[]) => {
    if (files.length === 0) return;
    const room = DOCUMENT_LIMITS.maxPerMessage - current.current.length;
    const accepted = files.slice(0, Math.max(0, room)).map((file) => ({ file, item: { key: `document-${++count.current}`, name: file.name || `Pasted file ${count.current}`, status: 'uploading' as const } }));
    setProblem(files.length > room ? `A question carries at most ${DOCUMENT_LIMITS.maxPerMessage} documents.` : null);
    for (const { file, item } of accepted) {
      void uploadDocument(file, item.name)
        .then((document) => {
          // Removed while it was on its way: it was never sent.
          if (!current.current.some((i) => i.key === item.key)) return void deleteDocument(document.id).catch(() => {});
          patch(item.key, { status: 'uploaded', document });
        })
        .catch((err: unknown) => patch(item.key, { status: 'refused', error: uploadRefusal(err, 'The file could not be uploaded.') }));
    }
    if (accepted.length > 0) setItems((list) => [...list, ...accepted.map((a) => a.item)]);
  }, []);

  const remove = useCallback((key: string) => {
    const item = current.current.find((i) => i.key === key);
    if (item?.document) void deleteDocument(item.document.id).catch(() => {});
    setItems((list) => list.filter((i) => i.key !== key));
    setProblem(null);
  }, []);

  const clear = useCallback(() => {
    setItems([]);
    setProblem(null);
  }, []);

  const documents = useCallback(
    () => current.current.flatMap((i) => (i.document ? [{ id: i.document.id, name: i.document.name, type: i.document.type, status: i.document.status }] : [])),
    [],
  );

  const blocked = items.some((i) => i.status === 'refused') ? 'Remove the files that could not be uploaded, or attach them again.' : null;
  return { items, add, remove, clear, problem, blocked, uploading: items.some((i) => i.status === 'uploading'), documents };
}
