import { renderToString } from 'react-dom/server';
import { AppRoot } from './app/app-root.tsx';
import { preloadSitePage, SiteRoot, type SitePage } from './app/site-root.tsx';
import { primeAppConfig, type TClientConfig } from './lib/app-config.ts';

export type { SitePage };

/** Placeholders the server replaces on every request (server/lib/http/client-app.ts), so the
 * landing page built once serves any site name and contact address. */
export const PLACEHOLDERS = { siteName: '%SITE_NAME%', contactEmail: '%CONTACT_EMAIL%', year: '%YEAR%' } as const;

const neverLoaded = () => Promise.reject(new Error('a rendered page never opens the app'));

/**
 * The HTML of a public page as a signed-out visitor first sees it: the same tree the browser
 * hydrates (client/site-main.tsx), with the session still loading. Built for Node by
 * `vite build --ssr`: script/prerender.ts renders `/` with it at build time, and the server
 * renders `/insights` and the article pages with it per request. `pageUrl` is the page's public
 * address (an article's links are told apart by it: another site's open in a new tab).
 */
export async function renderSitePage(location: string, page: SitePage, config: TClientConfig, year: string, pageUrl = 'http://localhost/'): Promise<string> {
  await preloadSitePage(page);
  // Loaded lazily, as site-root.tsx loads it: a static import here would fold it into this file.
  const { setServerPageUrl } = await import('./components/markdown.tsx');
  primeAppConfig(config, year);
  setServerPageUrl(pageUrl);
  return renderToString(
    <AppRoot>
      <SiteRoot location={location} page={page} loadApp={neverLoaded} />
    </AppRoot>,
  );
}

/** `/` at build time, with the placeholders in place of the runtime config. */
export function renderLanding(): Promise<string> {
  return renderSitePage('/', { kind: 'landing' }, { siteName: PLACEHOLDERS.siteName, contactEmail: PLACEHOLDERS.contactEmail, authProvider: 'local' }, PLACEHOLDERS.year);
}
