// Writes the prerendered landing page into the built dist/client/landing.html: the HTML React
// renders for `/` (client/prerender.tsx, built for Node into dist/prerender by
// `vite build --ssr`) goes into the page's root element, so the hero, services and contact
// paint before any JavaScript runs; the browser then hydrates the same tree.
//
//   node script/prerender.ts      (npm run build runs it after both Vite builds)
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';

const MARKER = '<!--landing-->';

const page = path.resolve('dist/client/landing.html');
const entry = pathToFileURL(path.resolve('dist/prerender/prerender.js')).href;

const { renderLanding } = (await import(entry)) as { renderLanding(): string };
const template = readFileSync(page, 'utf8');
if (!template.includes(MARKER)) throw new Error(`prerender: ${page} has no ${MARKER} marker (already prerendered?)`);
const html = renderLanding();
if (!html.includes('Automate Your Business Success')) throw new Error('prerender: the rendered landing page has no hero');
writeFileSync(page, template.replace(MARKER, () => html));
console.log(`prerender: ${path.relative(process.cwd(), page)} (${(html.length / 1024).toFixed(1)} KB of landing HTML)`);
