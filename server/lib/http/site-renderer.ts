import { existsSync } from 'node:fs';
import { pathToFileURL } from 'node:url';
import type { TPublicConfig } from '../../../contracts/auth.ts';
import type { TSitePage } from '../../../contracts/site.ts';

/** client/prerender.tsx's renderSitePage: a public page's HTML, from the same React tree the
 * browser hydrates; `pageUrl` is the page's public address. */
export type SiteRenderer = (location: string, page: TSitePage, config: TPublicConfig, year: string, pageUrl: string) => string | Promise<string>;

/**
 * The renderer from the build (`vite build --ssr` writes dist/prerender/prerender.js), imported
 * on first use so a server that never renders a public page never loads React. Null when the
 * client is not built (tests, a server started before `npm run build`): the app's page is sent
 * instead and renders in the browser.
 */
export function builtSiteRenderer(file: string): () => Promise<SiteRenderer | null> {
  let loaded: Promise<SiteRenderer | null> | undefined;
  return () => {
    loaded ??= existsSync(file)
      ? import(pathToFileURL(file).href).then((module: { renderSitePage: SiteRenderer }) => module.renderSitePage)
      : Promise.resolve(null);
    return loaded;
  };
}
