import type { TPublicArticle } from '../../../../contracts/articles.ts';
import type { TSitePage } from '../../../../contracts/site.ts';
import { ArticleWithExtras } from './article-extras.tsx';
import { SiteTagView } from './tag-view.tsx';

/** What a server-rendered public page renders on the server alone (client/app/site-root.tsx):
 * an article's body with its author, tags and related articles, or a tag's page (decision 0100). */
export type SitePartProps = TPublicArticle | { page: Extract<TSitePage, { kind: 'tag' }> };

/** One chunk for both, so the site's first load names one lazy part, not two. */
export default function SitePart(props: SitePartProps) {
  return 'page' in props ? <SiteTagView page={props.page} /> : <ArticleWithExtras {...props} />;
}
