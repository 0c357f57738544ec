import type { TArticleAuthor, TArticleTag, TPublicArticle, TRelatedArticle } from '../../../../contracts/articles.ts';
import { tagPath } from '../../../../contracts/tag-paths.ts';
import { articlePath } from '../../../components/article-card.tsx';
import { ArticleMarkdownBody } from '../../../components/markdown.tsx';
import { useNavigation } from '../../../lib/navigation.ts';

// What an article's page shows around its text (decision 0100): its author and tags under the
// title, related articles after it. Its own chunk: the server renders it into the page and the
// browser keeps that HTML (client/app/site-root.tsx), so the site's first load does not carry it.

/** "JD" for "Jane Doe": the circle shown for an author without a photo. */
export function initialsOf(name: string): string {
  const words = name.trim().split(/\s+/).filter(Boolean);
  const letters = words.length > 1 ? [words[0]!, words[words.length - 1]!] : words;
  return letters.map((word) => Array.from(word)[0]!.toUpperCase()).join('') || '?';
}

function Author({ author }: { author: TArticleAuthor | null | undefined }) {
  if (author === undefined) return null;
  const name = author?.name ?? 'Unknown author';
  return (
    <p className="flex items-center gap-3 text-sm text-slate-700">
      {author?.picture ? (
        // A remote photo (Google's, an OIDC provider's): lazy, its size fixed so nothing moves,
        // and no referrer sent to its host. Decorative: the name beside it says who.
        <img src={author.picture} alt="" width={32} height={32} loading="lazy" decoding="async" referrerPolicy="no-referrer" className="size-8 rounded-full object-cover" />
      ) : (
        <span aria-hidden="true" className="flex size-8 items-center justify-center rounded-full bg-slate-200 text-xs font-semibold text-slate-700">
          {author ? initialsOf(author.name) : '?'}
        </span>
      )}
      <span>
        By <span className="font-medium text-slate-900">{name}</span>
      </span>
    </p>
  );
}

function Tags({ tags }: { tags: TArticleTag[] }) {
  const { Link } = useNavigation();
  if (tags.length === 0) return null;
  return (
    <nav aria-label="Tags">
      <ul className="flex flex-wrap gap-2">
        {tags.map((tag) => (
          <li key={tag.slug}>
            <Link to={tagPath(tag.slug)} className="inline-flex max-w-full rounded-full border border-slate-300 px-2.5 py-0.5 text-xs font-medium text-slate-700 wrap-anywhere hover:border-brand-600 hover:text-brand-700">
              {tag.name}
            </Link>
          </li>
        ))}
      </ul>
    </nav>
  );
}

/** Under the title: the author (with photo or initials) and the tags, each a link to its page. */
export function ArticleTop({ article }: { article: TPublicArticle }) {
  return (
    <div className="mt-6 flex flex-col gap-4">
      <Author author={article.author} />
      <Tags tags={article.tags} />
    </div>
  );
}

/** After the text: up to 3 published articles sharing the most tags; absent when none does. */
export function ArticleEnd({ article }: { article: TPublicArticle }) {
  const { Link } = useNavigation();
  const related: TRelatedArticle[] = article.related ?? [];
  if (related.length === 0) return null;
  return (
    <section aria-labelledby="related-articles" className="mt-12 border-t border-slate-200 pt-8">
      <h2 id="related-articles" className="text-xl font-semibold text-slate-900">
        Related articles
      </h2>
      <ul className="mt-4 grid gap-4">
        {related.map((other) => (
          <li key={other.slug} className="wrap-anywhere">
            <Link to={articlePath(other.slug)} className="font-medium text-brand-700 hover:underline">
              {other.title}
            </Link>
            <p className="mt-1 line-clamp-2 text-sm text-slate-600">{other.excerpt}</p>
          </li>
        ))}
      </ul>
    </section>
  );
}

/** The article's body as its page shows it: author and tags, the Markdown, related articles. */
export function ArticleWithExtras(article: TPublicArticle) {
  return (
    <>
      <ArticleTop article={article} />
      <ArticleMarkdownBody content={article.content} />
      <ArticleEnd article={article} />
    </>
  );
}
