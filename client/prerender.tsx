import { renderToString } from 'react-dom/server';
import { AppRoot } from './app/app-root.tsx';
import { SiteRoot, type SitePage } from './app/site-root.tsx';
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
 * renders `/insights` with it per request.
 */
export function renderSitePage(location: string, page: SitePage, config: TClientConfig, year: string): string {
  primeAppConfig(config, year);
  return renderToString(
    <AppRoot>
      <SiteRoot location={location} page={page} loadApp={neverLoaded} />
    </AppRoot>,
  );
}

/** `/` at build time, with the placeholders in place of the runtime config. */
export function renderLanding(): string {
  return renderSitePage('/', { kind: 'landing' }, { siteName: PLACEHOLDERS.siteName, contactEmail: PLACEHOLDERS.contactEmail, authProvider: 'local' }, PLACEHOLDERS.year);
}
