import { renderToString } from 'react-dom/server';
import { AppRoot } from './app/app-root.tsx';
import { LandingRoot } from './app/landing-app.tsx';
import { primeAppConfig } from './lib/app-config.ts';

/** Placeholders the server replaces on every request (server/lib/http/client-app.ts), so one
 * build serves any site name and contact address. */
export const PLACEHOLDERS = { siteName: '%SITE_NAME%', contactEmail: '%CONTACT_EMAIL%', year: '%YEAR%' } as const;

const neverLoaded = () => Promise.reject(new Error('the prerender never opens the app'));

/** The HTML of `/` as a signed-out visitor first sees it: the same tree the browser hydrates
 * (client/landing-main.tsx), with the session still loading and the insights as placeholders. */
export function renderLanding(): string {
  primeAppConfig({ siteName: PLACEHOLDERS.siteName, contactEmail: PLACEHOLDERS.contactEmail, authProvider: 'local' }, PLACEHOLDERS.year);
  return renderToString(
    <AppRoot>
      <LandingRoot location="/" loadApp={neverLoaded} />
    </AppRoot>,
  );
}
