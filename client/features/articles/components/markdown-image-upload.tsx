import { useRef, useState, type ClipboardEvent, type DragEvent, type RefObject } from 'react';
import { Button } from '../../../components/ui/button.tsx';
import { imageFileOf, uploadRefusal } from '../lib/image-upload.ts';
import { editTextarea } from '../lib/edit-textarea.ts';
import { ImageFileInput } from './image-file-input.tsx';

/** What the alt text starts as: selected after the upload, for the writer to type over. */
export const ALT_PLACEHOLDER = 'Describe this image';
let uploads = 0;

/**
 * Images into the Markdown (issue 34 item 3, docs/decisions/0099): the "Insert image" button,
 * or an image pasted or dropped on the text. A placeholder goes in at the cursor at once
 * (`![Uploading name…]()`) and becomes `![Describe this image](url)` when the upload answers,
 * the alt text selected; a refused file takes its placeholder out and says why.
 */
export function useMarkdownImageUpload(textarea: RefObject<HTMLTextAreaElement | null>, upload: ((file: File) => Promise<{ markdownUrl: string }>) | undefined) {
  const [problem, setProblem] = useState<string | null>(null);
  const [pending, setPending] = useState(0);
  const fileInput = useRef<HTMLInputElement | null>(null);

  async function insert(file: File): Promise<void> {
    const el = textarea.current;
    if (!el || !upload) return;
    setProblem(null);
    const placeholder = `![Uploading ${file.name.replace(/[[\]]/g, '')} (${++uploads})…]()`;
    editTextarea(el, { from: el.selectionStart, to: el.selectionEnd, insert: placeholder, selectFrom: el.selectionStart + placeholder.length, selectTo: el.selectionStart + placeholder.length });
    setPending((n) => n + 1);
    const replace = (text: string, select: (from: number) => [number, number]) => {
      const from = el.value.indexOf(placeholder);
      if (from < 0) return; // the writer deleted the placeholder meanwhile
      const [selectFrom, selectTo] = select(from);
      editTextarea(el, { from, to: from + placeholder.length, insert: text, selectFrom, selectTo });
    };
    try {
      const image = await upload(file);
      replace(`![${ALT_PLACEHOLDER}](${image.markdownUrl})`, (from) => [from + 2, from + 2 + ALT_PLACEHOLDER.length]);
    } catch (err) {
      replace('', (from) => [from, from]);
      setProblem(uploadRefusal(err));
    } finally {
      setPending((n) => n - 1);
    }
  }

  const take = (files: FileList | null | undefined): boolean => {
    const file = imageFileOf(files);
    if (file) void insert(file);
    return file !== null;
  };

  return {
    onPaste: (event: ClipboardEvent<HTMLTextAreaElement>) => {
      if (upload && imageFileOf(event.clipboardData.files)) {
        event.preventDefault();
        take(event.clipboardData.files);
      }
    },
    onDrop: (event: DragEvent<HTMLTextAreaElement>) => {
      if (upload && imageFileOf(event.dataTransfer.files)) {
        event.preventDefault();
        take(event.dataTransfer.files);
      }
    },
    controls: upload ? (
      <div className="mt-1 flex flex-wrap items-center gap-3">
        <Button variant="outline" size="sm" onClick={() => fileInput.current?.click()} aria-busy={pending > 0}>
          Insert image
        </Button>
        <span className="text-xs text-slate-500">{pending > 0 ? 'Uploading the image…' : 'Or paste or drop an image on the text.'}</span>
        <ImageFileInput inputRef={fileInput} label="Image file to insert" onFiles={take} />
        {problem && (
          <p role="alert" className="w-full text-sm text-red-700">
            {problem}
          </p>
        )}
      </div>
    ) : null,
  };
}
