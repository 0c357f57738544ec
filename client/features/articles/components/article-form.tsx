import '../../../lib/zod-csp.ts';
import { zodResolver } from '@hookform/resolvers/zod';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useEffect, type ReactNode } from 'react';
import { useForm } from 'react-hook-form';
import { useNavigate } from 'react-router';
import type { z } from 'zod';
import { ZArticleInput, type TArticle, type TArticleInput } from '../../../../contracts/articles.ts';
import { DEFAULT_READ_TIME } from '../../../../contracts/constants.ts';
import { Field } from '../../../components/field.tsx';
import { Button } from '../../../components/ui/button.tsx';
import { apiRequest, errorMessage } from '../../../lib/api-client.ts';
import { useAuth } from '../../../lib/auth-context.ts';
import { notify } from '../../../lib/notify.ts';
import { invalidateArticles, uploadArticleImage } from '../api/articles-api.ts';
import { unsavedWorkKey, useUnsavedBackstop } from '../lib/unsaved-backstop.ts';
import { ArticleCoverField, coverChanges } from './article-cover-field.tsx';
import { ArticleSeoFields, seoChanges, seoDefaults } from './article-seo-fields.tsx';
import { MarkdownEditor } from './markdown-editor.tsx';
import { PublishingSection } from './publishing-section.tsx';
import { TagsField, tagsChange } from './tags-field.tsx';
import { UnsavedChangesPrompt } from './unsaved-changes-prompt.tsx';

type ArticleValues = z.output<typeof ZArticleInput>;

const CONTROL =
  'mt-1.5 block w-full rounded-md border border-slate-300 bg-white px-3 py-2 text-slate-900 shadow-sm placeholder:text-slate-400 ' +
  'focus:border-brand-600 focus:outline-2 focus:outline-brand-600/30 aria-[invalid=true]:border-red-600';

/**
 * The article form, for creating (no `article`) and for editing (`article` prefills it).
 * SPEC section 5: validated on submit with the shared schema, revalidated on change. Creating
 * POSTs with the user's id as authorId, then goes to /dashboard; editing PATCHes, then goes back
 * to the admin's list. Either way the articles' queries are refreshed.
 */
export function ArticleForm({ article }: { article?: TArticle }) {
  const editing = article !== undefined;
  const { user } = useAuth();
  const navigate = useNavigate();
  const queryClient = useQueryClient();
  const savedValues: TArticleInput = {
    title: article?.title ?? '',
    category: article?.category ?? '',
    readTime: article?.readTime ?? DEFAULT_READ_TIME,
    excerpt: article?.excerpt ?? '',
    content: article?.content ?? '',
    published: article?.published ?? false,
    ...seoDefaults(article),
    publishAt: article?.publishAt ?? null,
    tags: article?.tags.slice(1).map((tag) => tag.name) ?? [],
    coverImageId: article?.coverImageId ?? null,
    coverAlt: article?.coverAlt ?? '',
  };
  const {
    register,
    control,
    handleSubmit,
    subscribe,
    reset,
    formState: { errors },
  } = useForm<TArticleInput, unknown, ArticleValues>({
    resolver: zodResolver(ZArticleInput),
    mode: 'onSubmit',
    reValidateMode: 'onChange',
    defaultValues: savedValues,
  });

  // Unsaved work is kept in this browser as it is typed, and offered back on the next visit.
  const backstop = useUnsavedBackstop(unsavedWorkKey(user?.id, article?.id), savedValues);
  const { record } = backstop;
  useEffect(() => subscribe({ formState: { values: true }, callback: ({ values }) => record(values) }), [subscribe, record]);
  const restoreUnsaved = () => {
    const values = backstop.restore();
    if (values) reset(values as TArticleInput, { keepDefaultValues: true });
  };

  const save = useMutation({
    mutationFn: ({ metaTitle, metaDescription, canonicalUrl, coverImageId, coverAlt, tags, ...spec }: ArticleValues) => {
      const values = { ...spec, ...seoChanges({ metaTitle, metaDescription, canonicalUrl }, article), ...coverChanges({ coverImageId, coverAlt }, article), ...tagsChange(tags, article) };
      return article
        ? apiRequest<TArticle>('PATCH', `/api/articles/${encodeURIComponent(article.id)}`, values)
        : apiRequest<TArticle>('POST', '/api/articles', { ...values, authorId: user?.id ?? null });
    },
    onSuccess: () => {
      backstop.clear();
      notify.success('Success!', editing ? 'Article updated successfully' : 'Article created successfully');
      void invalidateArticles(queryClient);
      navigate(editing ? '/admin/articles' : '/dashboard');
    },
    onError: (err) => notify.error('Error', errorMessage(err, editing ? 'Failed to update article' : 'Failed to create article', { serverWords: false })),
  });

  const submitLabel = editing ? (save.isPending ? 'Saving...' : 'Save Changes') : save.isPending ? 'Creating...' : 'Create Article';

  return (
    <form noValidate onSubmit={handleSubmit((values) => save.mutate(values))} className="space-y-6">
      {backstop.offer && <UnsavedChangesPrompt savedAt={backstop.offer.savedAt} onRestore={restoreUnsaved} onDiscard={backstop.discard} />}
      <Field label="Title" error={errors.title}>
        {(props) => <input {...props} type="text" className={CONTROL} {...register('title')} />}
      </Field>
      <div className="grid gap-6 sm:grid-cols-2">
        <Field label="Category" error={errors.category}>
          {(props) => <input {...props} type="text" placeholder="e.g. Automation" className={CONTROL} {...register('category')} />}
        </Field>
        <Field label="Read Time" error={errors.readTime}>
          {(props) => <input {...props} type="text" placeholder={DEFAULT_READ_TIME} className={CONTROL} {...register('readTime')} />}
        </Field>
      </div>
      <TagsField control={control} errors={errors} className={CONTROL} />
      <Field label="Excerpt" hint="A short summary shown on the article cards." error={errors.excerpt}>
        {(props) => <textarea {...props} rows={3} className={CONTROL} {...register('excerpt')} />}
      </Field>
      <ArticleCoverField article={article} control={control} register={register} errors={errors} className={CONTROL} />
      <MarkdownEditor
        label="Content"
        hint="Markdown: headings, lists, links, emphasis, code and tables."
        error={errors.content}
        registration={register('content')}
        control={control}
        uploadImage={uploadArticleImage}
      />

      <ArticleSeoFields article={article} register={register} errors={errors} className={CONTROL} />

      <PublishingSection control={control} error={errors.publishAt} />

      <div className="flex flex-col-reverse gap-3 sm:flex-row sm:justify-end">
        <Button variant="outline" onClick={() => navigate(editing ? '/admin/articles' : '/dashboard')}>
          Cancel
        </Button>
        <Button type="submit" disabled={save.isPending} aria-busy={save.isPending}>
          {submitLabel}
        </Button>
      </div>
    </form>
  );
}

/** The frame around the form on the create and edit screens. */
export function ArticleFormScreen({ title, intro, children }: { title: string; intro: string; children: ReactNode }) {
  return (
    // Wide enough on a large screen for the content and its preview side by side.
    <div className="mx-auto max-w-3xl px-4 py-10 sm:px-6 lg:max-w-6xl lg:px-8">
      <h1 className="text-3xl font-bold text-slate-900">{title}</h1>
      <p className="mt-2 text-slate-600">{intro}</p>
      <div className="mt-8 rounded-xl border border-slate-200 bg-white p-6 shadow-sm">{children}</div>
    </div>
  );
}
