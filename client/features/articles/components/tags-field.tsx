import { X } from 'lucide-react';
import { useState, type KeyboardEvent } from 'react';
import { useController, type Control, type FieldError, type FieldErrors } from 'react-hook-form';
import { ARTICLE_LIMITS, type TArticle, type TArticleInput } from '../../../../contracts/articles.ts';
import { Field } from '../../../components/field.tsx';

/** The further tags to send: only when they differ from the article's (none for a new article
 * without any), so the rest of the form's request stays as SPEC's. */
export function tagsChange(tags: string[] | undefined, article?: TArticle): { tags?: string[] } {
  const saved = article?.tags.slice(1).map((tag) => tag.name) ?? [];
  const wanted = tags ?? [];
  return wanted.length === saved.length && wanted.every((name, i) => name === saved[i]) ? {} : { tags: wanted };
}

/** The field's error: the list's own (too many) or the first refused name's. */
function tagsError(errors: FieldErrors<Pick<TArticleInput, 'tags'>>): FieldError | undefined {
  const error = errors.tags as (FieldError & Record<number, FieldError | undefined>) | undefined;
  if (!error) return undefined;
  if (error.message) return error;
  return Object.values(error).find((item): item is FieldError => typeof item === 'object' && item !== null && 'message' in item && typeof item.message === 'string');
}

/**
 * "Tags" (issue 34 item 4, docs/decisions/0100): the article's further tags beside its category
 * (the primary tag). Typing a name and pressing Enter or a comma (or leaving the field) adds it
 * as a chip; Backspace in the empty field removes the last one, and each chip's button removes
 * it. A name already there (in any case) is not added twice.
 */
export function TagsField({ control, errors, className }: { control: Control<TArticleInput>; errors: FieldErrors<TArticleInput>; className: string }) {
  const { field } = useController({ control, name: 'tags' });
  const tags = field.value ?? [];
  const [draft, setDraft] = useState('');

  const add = () => {
    const name = draft.trim().replace(/,+$/, '').trim();
    setDraft('');
    if (name && !tags.some((tag) => tag.toLowerCase() === name.toLowerCase())) field.onChange([...tags, name]);
  };
  const remove = (index: number) => field.onChange(tags.filter((_, i) => i !== index));
  const onKeyDown = (event: KeyboardEvent<HTMLInputElement>) => {
    if (event.key === 'Enter' || event.key === ',') {
      event.preventDefault(); // Enter would submit the form
      add();
    } else if (event.key === 'Backspace' && draft === '' && tags.length > 0) {
      remove(tags.length - 1);
    }
  };

  return (
    <Field label="Tags" hint={`Further tags beside the category (its first), up to ${ARTICLE_LIMITS.tags.max} in all. Press Enter or a comma to add one.`} error={tagsError(errors)}>
      {(props) => (
        <div>
          {tags.length > 0 && (
            <ul aria-label="Tags added" className="mt-1.5 flex flex-wrap gap-2">
              {tags.map((tag, index) => (
                <li key={tag} className="inline-flex max-w-full items-center gap-1 rounded-full bg-brand-50 py-0.5 pr-1 pl-2.5 text-xs font-medium text-brand-700">
                  <span className="wrap-anywhere">{tag}</span>
                  <button type="button" onClick={() => remove(index)} aria-label={`Remove tag ${tag}`} className="rounded-full p-0.5 hover:bg-brand-100 focus-visible:outline-2 focus-visible:outline-brand-600">
                    <X aria-hidden="true" className="size-3" />
                  </button>
                </li>
              ))}
            </ul>
          )}
          <input
            {...props}
            ref={field.ref}
            type="text"
            value={draft}
            placeholder="e.g. Finance"
            className={className}
            onChange={(event) => {
              // A pasted or typed comma separates names.
              const parts = event.target.value.split(',');
              if (parts.length > 1) {
                const names = parts.slice(0, -1).map((part) => part.trim()).filter(Boolean);
                const next = [...tags];
                for (const name of names) if (!next.some((tag) => tag.toLowerCase() === name.toLowerCase())) next.push(name);
                if (next.length !== tags.length) field.onChange(next);
                setDraft(parts.at(-1)!);
              } else {
                setDraft(event.target.value);
              }
            }}
            onKeyDown={onKeyDown}
            onBlur={() => {
              add();
              field.onBlur();
            }}
          />
        </div>
      )}
    </Field>
  );
}
