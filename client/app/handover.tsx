import type { ReactElement } from 'react';
import type { TMe } from '../../contracts/auth.ts';
import type { TUser } from '../../contracts/users.ts';
import type { TSitePage } from '../../contracts/site.ts';
import { articleKey, articlesPageUrl, tagPageUrl } from '../features/articles/api/articles-api.ts';
import { ME_QUERY_KEY } from '../features/auth/api/auth-api.ts';
import { createQueryClient } from '../lib/query-client.ts';
import { App } from './app.tsx';
import { ArticlePage, InsightsPage, LandingPage, TagPage } from './router.tsx';

/**
 * The whole app, as a public page hands over to it (client/site-main.tsx; only that page loads
 * this module). `user` is the session the page already knows (a signed-in visitor). `screen` is
 * the page on screen when the app takes over that same screen: its code is loaded and its data
 * put in the cache first, so nothing flashes between two identical pages.
 */
export async function appForSitePage(user: TUser | undefined, screen: TSitePage | undefined): Promise<ReactElement> {
  const queryClient = createQueryClient();
  if (user) queryClient.setQueryData<TMe>(ME_QUERY_KEY, { user });
  if (screen?.kind === 'insights') queryClient.setQueryData([articlesPageUrl(screen.page)], screen.list);
  if (screen?.kind === 'article') queryClient.setQueryData(articleKey(screen.article.slug), screen.article);
  if (screen?.kind === 'tag') queryClient.setQueryData([tagPageUrl(screen.tag.slug, screen.page)], { ...screen.list, tag: screen.tag });
  if (screen) await { landing: LandingPage, insights: InsightsPage, article: ArticlePage, tag: TagPage }[screen.kind].preload();
  return <App queryClient={queryClient} />;
}
