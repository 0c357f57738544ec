import { startTransition } from 'react';
import { hydrateRoot } from 'react-dom/client';
import { AppRoot } from './app/app-root.tsx';
import { SiteRoot, type LoadApp, type SitePage } from './app/site-root.tsx';
import './styles.css';

// The entry of the site's public pages (site.html): hydrates the page the server sent, `/`
// prerendered at build time or `/insights` rendered with its articles. The page's own script
// (client/site-boot.ts) loads it once the page has painted. The rest of the app (router, query
// cache, every other screen) is a separate chunk, loaded only when the visitor goes further or
// is signed in.
/** What the server rendered the page from (server/lib/http/client-app.ts); the landing page
 * needs nothing. */
function sitePage(): SitePage {
  const text = document.getElementById('site-page')?.textContent;
  return text ? (JSON.parse(text) as SitePage) : { kind: 'landing' };
}

const page = sitePage();
const pathAtLoad = window.location.pathname;

const loadApp: LoadApp = async (user) => {
  const { appForSitePage } = await import('./app/handover.tsx');
  // Taking over the same screen (a signed-in visitor) or another one (a link followed).
  return appForSitePage(user, window.location.pathname === pathAtLoad ? page : undefined);
};

// As a transition, hydration yields to the browser every few milliseconds instead of holding
// the main thread for the whole page (what the page already shows needs none of it to paint).
startTransition(() => {
  hydrateRoot(
    document.getElementById('root')!,
    <AppRoot>
      <SiteRoot location={window.location.pathname + window.location.search} page={page} loadApp={loadApp} />
    </AppRoot>,
  );
});
