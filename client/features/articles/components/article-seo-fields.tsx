import { ChevronDown } from 'lucide-react';
import { useId, useState } from 'react';
import type { FieldErrors, UseFormRegister } from 'react-hook-form';
import { ARTICLE_LIMITS, type TArticle, type TArticleInput } from '../../../../contracts/articles.ts';
import { Field } from '../../../components/field.tsx';

const SEO_FIELDS = ['metaTitle', 'metaDescription', 'canonicalUrl'] as const;
type SeoField = (typeof SEO_FIELDS)[number];
type SeoValues = Pick<TArticleInput, SeoField>;

/** The form's starting values for the section: what the article has, or empty. */
export function seoDefaults(article?: TArticle): Record<SeoField, string> {
  return { metaTitle: article?.metaTitle ?? '', metaDescription: article?.metaDescription ?? '', canonicalUrl: article?.canonicalUrl ?? '' };
}

/** The section's fields that differ from what the article has (all set ones for a new article):
 * the rest of the form's request stays as SPEC's, and an emptied field is sent as null. */
export function seoChanges(values: { [K in SeoField]?: string | null }, article?: TArticle): Partial<Record<SeoField, string | null>> {
  const changes: Partial<Record<SeoField, string | null>> = {};
  for (const name of SEO_FIELDS) {
    const value = values[name] || null;
    if (value !== (article?.[name] ?? null)) changes[name] = value;
  }
  return changes;
}

/**
 * "Search and social" (decision 0096): the article's meta title, meta description and canonical
 * URL, under a button that shows and hides them. Closed unless the article has one set, and
 * opened by an error in one (the fields stay mounted, so a refused one can take the focus).
 */
export function ArticleSeoFields({ article, register, errors, className }: { article?: TArticle; register: UseFormRegister<TArticleInput>; errors: FieldErrors<SeoValues>; className: string }) {
  const id = useId();
  const [open, setOpen] = useState(() => SEO_FIELDS.some((name) => article?.[name]));
  // Opened when an error appears (adjusted while rendering, as React advises for state that
  // follows a prop), and then closable again.
  const hasError = SEO_FIELDS.some((name) => errors[name]);
  const [hadError, setHadError] = useState(hasError);
  if (hasError !== hadError) {
    setHadError(hasError);
    if (hasError) setOpen(true);
  }
  return (
    <section aria-labelledby={`${id}-toggle`} className="rounded-lg border border-slate-200">
      <h2 className="m-0">
        <button
          type="button"
          id={`${id}-toggle`}
          aria-expanded={open}
          aria-controls={`${id}-panel`}
          onClick={() => setOpen((was) => !was)}
          className="flex w-full items-center justify-between gap-3 rounded-lg px-4 py-3 text-left text-sm font-medium text-slate-900 focus-visible:outline-2 focus-visible:outline-brand-600"
        >
          Search and social
          <ChevronDown aria-hidden="true" className={`size-4 text-slate-500 transition-transform motion-reduce:transition-none ${open ? 'rotate-180' : ''}`} />
        </button>
      </h2>
      <div id={`${id}-panel`} hidden={!open} className="space-y-6 border-t border-slate-200 p-4">
        <Field label="Meta title" hint={`How search results and link previews title the article, at most ${ARTICLE_LIMITS.metaTitle.max} characters. Empty: its title and the site's name.`} error={errors.metaTitle}>
          {(props) => <input {...props} type="text" className={className} {...register('metaTitle')} />}
        </Field>
        <Field label="Meta description" hint={`The snippet under that title, at most ${ARTICLE_LIMITS.metaDescription.max} characters. Empty: the excerpt.`} error={errors.metaDescription}>
          {(props) => <textarea {...props} rows={2} className={className} {...register('metaDescription')} />}
        </Field>
        <Field label="Canonical URL" hint="Where the article was first published, if elsewhere (https://…). Empty: its own address here." error={errors.canonicalUrl}>
          {(props) => <input {...props} type="url" inputMode="url" className={className} {...register('canonicalUrl')} />}
        </Field>
      </div>
    </section>
  );
}
