import { useId, useRef, useState, type ClipboardEvent, type DragEvent } from 'react';
import { Controller, type Control, type FieldErrors, type UseFormRegister } from 'react-hook-form';
import { articleImageSources } from '../../../../contracts/article-image-urls.ts';
import type { TArticle, TArticleInput } from '../../../../contracts/articles.ts';
import { Field } from '../../../components/field.tsx';
import { Button } from '../../../components/ui/button.tsx';
import { uploadArticleImage } from '../api/articles-api.ts';
import { imageFileOf, uploadRefusal } from '../lib/image-upload.ts';
import { ImageFileInput } from './image-file-input.tsx';

type Size = { id: string; width: number; height: number };
type CoverField = 'coverImageId' | 'coverAlt';

/** The cover fields a save sends: those that differ from the article's (none on a new article
 * without a cover), so SPEC's request stays as it was when no cover is touched. */
export function coverChanges(values: { [K in CoverField]?: string | null }, article?: TArticle): Partial<Record<CoverField, string | null>> {
  const changes: Partial<Record<CoverField, string | null>> = {};
  for (const name of ['coverImageId', 'coverAlt'] as const) {
    const value = values[name] || null;
    if (value !== (article?.[name] ?? null)) changes[name] = value;
  }
  return changes;
}

/**
 * The form's "Cover image" section (issue 34 item 3, docs/decisions/0099): choose a file, or
 * drop or paste one on the box; see it; write its alt text (required with a cover); remove it.
 * The image is uploaded when chosen, and the form keeps its id.
 */
export function ArticleCoverField({
  article,
  control,
  register,
  errors,
  className,
}: {
  article: TArticle | undefined;
  control: Control<TArticleInput>;
  register: UseFormRegister<TArticleInput>;
  errors: FieldErrors<TArticleInput>;
  className: string;
}) {
  const heading = useId();
  const fileInput = useRef<HTMLInputElement | null>(null);
  // The sizes of the images this form has seen, to show the chosen one.
  const [sizes, setSizes] = useState<Record<string, Size>>(() => (article?.coverImageId && article.cover ? { [article.coverImageId]: { id: article.coverImageId, ...article.cover } } : {}));
  const [uploading, setUploading] = useState(false);
  const [problem, setProblem] = useState<string | null>(null);

  return (
    <section aria-labelledby={heading} className="space-y-3">
      <h2 id={heading} className="text-sm font-medium text-slate-900">
        Cover image
      </h2>
      <Controller
        control={control}
        name="coverImageId"
        render={({ field }) => {
          const chosen = field.value ? (sizes[field.value] ?? null) : null;
          const take = async (file: File | null) => {
            if (!file) return;
            setUploading(true);
            setProblem(null);
            try {
              const image = await uploadArticleImage(file);
              setSizes((known) => ({ ...known, [image.id]: image }));
              field.onChange(image.id);
            } catch (err) {
              setProblem(uploadRefusal(err));
            } finally {
              setUploading(false);
            }
          };
          const onDrop = (event: DragEvent<HTMLDivElement>) => {
            event.preventDefault();
            void take(imageFileOf(event.dataTransfer.files));
          };
          const onPaste = (event: ClipboardEvent<HTMLDivElement>) => {
            const file = imageFileOf(event.clipboardData.files);
            if (!file) return;
            event.preventDefault();
            void take(file);
          };
          return (
            <div
              data-testid="cover-drop-zone"
              tabIndex={0}
              aria-label="Cover image: drop or paste an image here"
              aria-busy={uploading}
              onDragOver={(event) => event.preventDefault()}
              onDrop={onDrop}
              onPaste={onPaste}
              className="rounded-md border border-dashed border-slate-300 p-4 focus-visible:outline-2 focus-visible:outline-brand-600"
            >
              {field.value ? (
                <div className="space-y-3">
                  {chosen ? (
                    <img {...articleImageSources(chosen)} alt="Cover preview" sizes="320px" className="h-auto max-h-48 w-auto rounded-md" />
                  ) : (
                    <p className="text-sm text-slate-600">A cover image is chosen.</p>
                  )}
                  <div className="flex flex-wrap gap-2">
                    <Button variant="outline" onClick={() => fileInput.current?.click()} disabled={uploading}>
                      Replace cover image
                    </Button>
                    <Button variant="outline" onClick={() => field.onChange(null)} disabled={uploading}>
                      Remove cover image
                    </Button>
                  </div>
                </div>
              ) : (
                <div className="flex flex-wrap items-center gap-3 text-sm text-slate-600">
                  <Button variant="outline" onClick={() => fileInput.current?.click()} disabled={uploading}>
                    Choose a cover image
                  </Button>
                  <span>or drop or paste one here. JPEG, PNG or WebP, up to 10 MB.</span>
                </div>
              )}
              <ImageFileInput inputRef={fileInput} label="Cover image file" onFiles={(files) => void take(imageFileOf(files))} />
              {uploading && (
                <p role="status" className="mt-2 text-sm text-slate-600">
                  Uploading the image…
                </p>
              )}
              {problem && (
                <p role="alert" className="mt-2 text-sm text-red-700">
                  {problem}
                </p>
              )}
            </div>
          );
        }}
      />
      <Field label="Cover alt text" hint="What the image shows, for people who cannot see it. Required with a cover image." error={errors.coverAlt}>
        {(props) => <input {...props} type="text" maxLength={200} className={className} {...register('coverAlt')} />}
      </Field>
    </section>
  );
}
