// Writes the prerendered landing page: the HTML React renders for `/` (client/prerender.tsx,
// built for Node into dist/prerender by `vite build --ssr`) goes into the root element of the
// site page template (dist/client/site.html), as dist/client/landing.html, so the hero,
// services and contact paint before any JavaScript runs; the browser then hydrates the same
// tree. The template stays as it is: the server renders `/insights` and the article pages into it
// per request.
//
//   node script/prerender.ts      (npm run build runs it after both Vite builds)
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { SITE_PAGE_MARKER } from '../contracts/site.ts';

const template = path.resolve('dist/client/site.html');
const page = path.resolve('dist/client/landing.html');
const entry = pathToFileURL(path.resolve('dist/prerender/prerender.js')).href;

const { renderLanding } = (await import(entry)) as { renderLanding(): Promise<string> };
const html = readFileSync(template, 'utf8');
if (!html.includes(SITE_PAGE_MARKER)) throw new Error(`prerender: ${template} has no ${SITE_PAGE_MARKER} marker`);
const landing = await renderLanding();
if (!landing.includes('Automate Your Business Success')) throw new Error('prerender: the rendered landing page has no hero');
writeFileSync(page, html.replace(SITE_PAGE_MARKER, () => landing));
console.log(`prerender: ${path.relative(process.cwd(), page)} (${(landing.length / 1024).toFixed(1)} KB of landing HTML)`);
