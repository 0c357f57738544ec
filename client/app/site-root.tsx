import { Suspense, useCallback, useRef, useState, type ReactElement } from 'react';
import type { TUser } from '../../contracts/users.ts';
import type { TSitePage } from '../../contracts/site.ts';
import type { SitePartProps } from '../features/articles/components/site-part.tsx';
import { Skeleton } from '../components/ui/skeleton.tsx';
import { LandingAuthProvider } from '../features/auth/components/landing-auth-provider.tsx';
import { ArticleView } from '../features/articles/components/article-view.tsx';
import { InsightsView } from '../features/articles/components/insights-view.tsx';
import { LandingPage } from '../features/landing/components/landing-page.tsx';
import { DocumentNavigation } from './document-navigation.tsx';
import { PageLayout } from './layout.tsx';
import { preloadable } from './preloadable.ts';

/** Loads the whole app, for the session's user when the landing page already knows it. */
export type LoadApp = (user?: TUser) => Promise<ReactElement>;

export type SitePage = TSitePage;

// The Markdown renderer is the heaviest part of an article page, and the page needs it only on
// the server: the article's body is static HTML (plain links, no handlers). The server renders
// it into the page; the browser adopts that HTML as it is instead of rendering it again. A tag's
// page (decision 0100) is rendered and adopted the same way, from the same chunk.
const LazySitePart = preloadable<SitePartProps>(() => import('../features/articles/components/site-part.tsx'));

/** The body's HTML as the server sent it, read before hydration; null on the server, or when
 * this page was not rendered by the server. */
function serverRenderedBody(): string | null {
  return typeof document === 'undefined' ? null : (document.querySelector('[data-article-body]')?.innerHTML ?? null);
}

/**
 * The article's body (with its author, tags and related articles) or a tag's page, on the
 * server-rendered page: on the server, rendered (loaded before the render: preloadSitePage); in
 * the browser, the same element with the HTML it already holds, so hydration leaves it untouched
 * and the renderer is never fetched. Rendered without the server's HTML (never on the site's own
 * page), it loads the renderer.
 */
function SiteArticleBody(props: SitePartProps) {
  const [html] = useState(serverRenderedBody);
  if (html !== null) return <div data-article-body="" dangerouslySetInnerHTML={{ __html: html }} />;
  return (
    <div data-article-body="">
      <Suspense fallback={<Skeleton className="mt-6 h-64" />}>
        <LazySitePart {...props} />
      </Suspense>
    </div>
  );
}

/** What rendering `page` on the server needs loaded first (the server renders in one pass and
 * cannot wait for a lazy part). */
export async function preloadSitePage(page: SitePage): Promise<void> {
  if (page.kind === 'article' || page.kind === 'tag') await LazySitePart.preload();
}

function SitePageView({ page }: { page: SitePage }) {
  switch (page.kind) {
    case 'landing':
      return <LandingPage />;
    case 'insights':
      return <InsightsView page={page.page} list={{ status: 'success', data: page.list }} />;
    case 'article':
      return <ArticleView shown={{ status: 'success', article: page.article }} Body={SiteArticleBody} />;
    case 'tag':
      return <SiteArticleBody page={page} />;
  }
}

/**
 * A public page on its own, in the site's header and footer, without the router, the query
 * cache or any other screen, so it loads and hydrates fast (its HTML comes from this same tree,
 * rendered at build time or by the server). Going anywhere else, or a signed-in visitor, hands
 * over to the whole app, which renders in its place at the URL the browser is then on.
 */
export function SiteRoot({ location, page, loadApp }: { location: string; page: SitePage; loadApp: LoadApp }) {
  const [app, setApp] = useState<ReactElement | null>(null);
  const opening = useRef(false);
  const openApp = useCallback(
    (user?: TUser) => {
      if (opening.current) return;
      opening.current = true;
      loadApp(user).then(setApp, (err: unknown) => {
        opening.current = false;
        console.error('The app could not be loaded:', err);
        // Away from / the server sends the whole app's page: a reload gets there without us.
        if (window.location.pathname !== '/') window.location.reload();
      });
    },
    [loadApp],
  );
  const leave = useCallback(() => openApp(), [openApp]);

  if (app) return app;
  return (
    <DocumentNavigation location={location} leave={leave}>
      <LandingAuthProvider onSignedIn={openApp}>
        <PageLayout>
          <SitePageView page={page} />
        </PageLayout>
      </LandingAuthProvider>
    </DocumentNavigation>
  );
}
