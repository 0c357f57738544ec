import { useDeferredValue, useId, useRef, type KeyboardEvent } from 'react';
import { useWatch, type Control, type FieldError, type FieldValues, type Path, type UseFormRegisterReturn } from 'react-hook-form';
import { ArticleMarkdown } from '../../../components/markdown.tsx';
import { Field } from '../../../components/field.tsx';
import { editTextarea } from '../lib/edit-textarea.ts';
import { markdownEdit, type MarkdownCommand } from '../lib/markdown-commands.ts';
import { MarkdownToolbar, shortcutCommand } from './markdown-toolbar.tsx';
import { useMarkdownImageUpload } from './markdown-image-upload.tsx';

const TEXTAREA =
  'block w-full resize-y rounded-b-md border border-slate-300 bg-white px-3 py-2 font-mono text-sm text-slate-900 shadow-sm placeholder:text-slate-400 ' +
  'focus:border-brand-600 focus:outline-2 focus:outline-brand-600/30 aria-[invalid=true]:border-red-600';

type MarkdownEditorProps<T extends FieldValues> = {
  label: string;
  hint: string;
  error?: FieldError;
  /** The field as react-hook-form registers it: the textarea stays an ordinary form field. */
  registration: UseFormRegisterReturn<Path<T>>;
  /** The form's control, to follow the field's value for the preview. */
  control: Control<T>;
  /** Uploads an image to insert (docs/decisions/0099); without it, no image button, paste or drop. */
  uploadImage?: (file: File) => Promise<{ markdownUrl: string }>;
};

/**
 * A Markdown field with a formatting toolbar, Ctrl/Cmd+B, +I and +K, and a live preview side
 * by side on wide screens (stacked on a phone). The preview is drawn by the public article's
 * renderer (ArticleMarkdown), so it looks and is sanitised exactly as the page will be; it
 * follows the text through useDeferredValue so typing stays smooth in a long article.
 */
export function MarkdownEditor<T extends FieldValues>({ label, hint, error, registration, control, uploadImage }: MarkdownEditorProps<T>) {
  const textarea = useRef<HTMLTextAreaElement | null>(null);
  const images = useMarkdownImageUpload(textarea, uploadImage);
  const previewHeading = useId();
  const value = useWatch({ control, name: registration.name }) as unknown;
  const preview = useDeferredValue(typeof value === 'string' ? value : '');

  const run = (command: MarkdownCommand) => {
    const el = textarea.current;
    if (!el) return;
    editTextarea(el, markdownEdit(command, el.value, { start: el.selectionStart, end: el.selectionEnd }));
  };

  const onKeyDown = (event: KeyboardEvent<HTMLTextAreaElement>) => {
    const command = shortcutCommand(event);
    if (!command) return;
    event.preventDefault();
    run(command);
  };

  return (
    <div className="grid gap-6 lg:grid-cols-2">
      <Field label={label} hint={hint} error={error}>
        {(props) => (
          <>
            <MarkdownToolbar controls={props.id} onCommand={run} />
            <textarea
              {...props}
              {...registration}
              ref={(el) => {
                registration.ref(el);
                textarea.current = el;
              }}
              rows={18}
              onKeyDown={onKeyDown}
              onPaste={images.onPaste}
              onDrop={images.onDrop}
              className={TEXTAREA}
            />
            {images.controls}
          </>
        )}
      </Field>
      <section aria-labelledby={previewHeading} className="min-w-0">
        <h2 id={previewHeading} className="text-sm font-medium text-slate-900">
          Preview
        </h2>
        {/* Focusable so a keyboard can scroll a long preview. */}
        <div tabIndex={0} className="mt-1.5 max-h-[40rem] overflow-y-auto rounded-md border border-slate-200 bg-white px-4 py-2 focus-visible:outline-2 focus-visible:outline-brand-600">
          {preview.trim() ? <ArticleMarkdown>{preview}</ArticleMarkdown> : <p className="my-4 text-sm text-slate-500">Nothing to preview yet.</p>}
        </div>
      </section>
    </div>
  );
}
