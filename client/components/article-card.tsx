import type { TArticleSummary } from '../../contracts/articles.ts';
import { useLocalDate } from '../lib/time-zone.ts';
import { useNavigation } from '../lib/navigation.ts';
import { Badge } from './ui/badge.tsx';
import { Card } from './ui/card.tsx';
import { Skeleton } from './ui/skeleton.tsx';

/** The path of an article's public page. */
export const articlePath = (slug: string): string => `/insights/${encodeURIComponent(slug)}`;

/** An article as a card in a list (the landing's insights, /insights): its cover (lazy), category badge, title
 * (2 lines) linking to its page, excerpt (3 lines), local date and read time. The whole card is
 * clickable through the title link's overlay; the link stays the one focusable element. Its text
 * wraps anywhere, so a word longer than the card (a URL) never makes the card, or the grid it
 * sits in, wider than the screen. */
export function ArticleCard({ article, headingLevel = 3 }: { article: TArticleSummary; headingLevel?: 2 | 3 }) {
  const Heading = headingLevel === 2 ? 'h2' : 'h3';
  const { Link } = useNavigation();
  const date = useLocalDate(article.publishedAt);
  return (
    <Card as="li" className="article-card">
      {/* Its attributes (srcset, sizes, size, lazy) come made from the server, its look from
          styles.css: this card loads before any interaction on the landing, whose JavaScript has a budget. */}
      {article.cover && <img {...article.cover} className="card-cover" />}
      <Badge variant="brand" wrap className="self-start">
        {article.category}
      </Badge>
      <Heading className="mt-3 line-clamp-2 text-lg font-semibold text-slate-900">
        <Link to={articlePath(article.slug)} className="after:absolute after:inset-0 hover:text-brand-700 focus:outline-none">
          {article.title}
        </Link>
      </Heading>
      <p className="mt-2 line-clamp-3 text-slate-600">{article.excerpt}</p>
      <p className="mt-auto flex items-center gap-2 pt-4 text-sm text-slate-600">
        <time dateTime={article.publishedAt}>{date}</time>
        <span aria-hidden="true">·</span>
        <span>{article.readTime}</span>
      </p>
    </Card>
  );
}

/** A grey pulsing stand-in for an ArticleCard while the list loads. */
export function ArticleCardSkeleton(props: { 'data-testid'?: string }) {
  return (
    <Card as="li" className="p-6" {...props}>
      <Skeleton className="h-5 w-24 rounded-full" />
      <Skeleton className="mt-4 h-6 w-4/5" />
      <Skeleton className="mt-3 h-16" />
      <Skeleton className="mt-6 h-4 w-1/3" />
    </Card>
  );
}
