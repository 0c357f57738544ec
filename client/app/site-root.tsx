import { useCallback, useRef, useState, type ReactElement } from 'react';
import type { TUser } from '../../contracts/users.ts';
import type { TSitePage } from '../../contracts/site.ts';
import { LandingAuthProvider } from '../features/auth/components/landing-auth-provider.tsx';
import { InsightsView } from '../features/articles/components/insights-view.tsx';
import { LandingPage } from '../features/landing/components/landing-page.tsx';
import { DocumentNavigation } from './document-navigation.tsx';
import { PageLayout } from './layout.tsx';

/** Loads the whole app, for the session's user when the landing page already knows it. */
export type LoadApp = (user?: TUser) => Promise<ReactElement>;

export type SitePage = TSitePage;

function SitePageView({ page }: { page: SitePage }) {
  return page.kind === 'landing' ? <LandingPage /> : <InsightsView page={page.page} list={{ status: 'success', data: page.list }} />;
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
