import { brotliCompressSync, constants, gzipSync } from 'node:zlib';
import { readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import tailwindcss from '@tailwindcss/vite';
import react from '@vitejs/plugin-react';
import { defineConfig, type Plugin } from 'vite';

const outDir = path.resolve('dist/client');
/** The server-side build of client/prerender.tsx, which script/prerender.ts runs after the
 * client build to write the landing page's HTML. */
const prerenderDir = path.resolve('dist/prerender');

/** Writes .br and .gz next to each text asset so the server sends them without compressing
 * per request. */
function precompress(): Plugin {
  return {
    name: 'precompress',
    apply: 'build',
    closeBundle() {
      const walk = (dir: string): string[] =>
        readdirSync(dir).flatMap((name) => {
          const file = path.join(dir, name);
          return statSync(file).isDirectory() ? walk(file) : [file];
        });
      for (const file of walk(outDir)) {
        // Not the HTML: the server fills in its placeholders per request.
        if (!/\.(js|css|svg|json|txt|xml|webmanifest)$/.test(file)) continue;
        const data = readFileSync(file);
        if (data.length < 1024) continue;
        writeFileSync(`${file}.br`, brotliCompressSync(data, { params: { [constants.BROTLI_PARAM_QUALITY]: 11 } }));
        writeFileSync(`${file}.gz`, gzipSync(data, { level: 9 }));
      }
    },
  };
}

/** Puts the stylesheet before the module preloads in each page's head: the browser opens only a
 * few connections at once, and the CSS, which holds back the first paint, must not queue
 * behind scripts that do not. */
function stylesheetFirst(): Plugin {
  return {
    name: 'stylesheet-first',
    apply: 'build',
    transformIndexHtml: {
      order: 'post',
      handler(html) {
        const stylesheets = html.match(/<link rel="stylesheet"[^>]*>\s*/g) ?? [];
        const firstPreload = html.search(/<link rel="modulepreload"/);
        if (stylesheets.length === 0 || firstPreload < 0) return html;
        const rest = stylesheets.reduce((page, tag) => page.replace(tag, ''), html);
        const at = rest.search(/<link rel="modulepreload"/);
        return rest.slice(0, at) + stylesheets.join('') + rest.slice(at);
      },
    },
  };
}

/**
 * The public pages (site.html: `/`, `/insights`, an article) load their scripts only once the
 * page has painted (docs/decisions/0068). The module script Vite writes for the page's entry
 * (client/site-main.tsx) gives way to client/site-boot.ts, written into the page itself (no
 * request before the first paint; the server allows it by its hash in the page's
 * Content-Security-Policy) and told in `data-hydrate` the entry and every file the entry
 * imports, directly or not (script/check-size.ts counts them and the inline script).
 */
function hydrateAfterPaint(): Plugin {
  const boot = path.resolve('client/site-boot.ts');
  return {
    name: 'hydrate-after-paint',
    apply: 'build',
    buildStart() {
      this.emitFile({ type: 'chunk', id: boot, name: 'site-boot' });
    },
    transformIndexHtml: {
      order: 'post',
      handler(html, { filename, bundle, chunk }) {
        if (!filename.endsWith('site.html') || !bundle || !chunk) return html;
        const bootChunk = Object.values(bundle).find((file) => file.type === 'chunk' && file.facadeModuleId === boot);
        if (bootChunk?.type !== 'chunk') throw new Error('hydrate-after-paint: client/site-boot.ts is not in the bundle');
        if (bootChunk.imports.length > 0 || bootChunk.dynamicImports.length > 0) throw new Error('hydrate-after-paint: client/site-boot.ts must import nothing');
        const code = bootChunk.code.trim();
        if (/<\/script|<!--/i.test(code)) throw new Error('hydrate-after-paint: the boot script cannot be written inside a <script> element');
        // Its code is in the page: no file of its own.
        delete bundle[bootChunk.fileName];
        const files: string[] = [];
        const add = (fileName: string) => {
          if (files.includes(fileName)) return;
          files.push(fileName);
          const file = bundle[fileName];
          if (file?.type === 'chunk') file.imports.forEach(add);
        };
        add(chunk.fileName);
        const entryTag = `<script type="module" crossorigin src="/${chunk.fileName}"></script>`;
        if (!html.includes(entryTag)) throw new Error(`hydrate-after-paint: no ${entryTag} in site.html`);
        const hydrate = files.map((fileName) => `/${fileName}`).join(' ');
        return html.replace(entryTag, '').replace('</body>', () => `  <script type="module" data-hydrate="${hydrate}">${code}</script>\n  </body>`);
      },
    },
  };
}

/**
 * The public pages carry their icon in the page (a data: URL of client/public/favicon.svg):
 * the browser fetched /favicon.svg while the page was painting, and Lighthouse's slow-4G
 * simulation counted that request in the largest paint of some loads and not others (750 or
 * 900 ms for the same page; docs/decisions/0068). The app's page keeps the file.
 */
function iconInSitePage(): Plugin {
  const link = '<link rel="icon" href="/favicon.svg" type="image/svg+xml" />';
  return {
    name: 'icon-in-site-page',
    apply: 'build',
    transformIndexHtml: {
      order: 'post',
      handler(html, { filename }) {
        if (!filename.endsWith('site.html')) return html;
        if (!html.includes(link)) throw new Error(`icon-in-site-page: no ${link} in site.html`);
        const svg = readFileSync(path.resolve('client/public/favicon.svg'), 'utf8').trim();
        return html.replace(link, () => `<link rel="icon" href="data:image/svg+xml,${encodeURIComponent(svg)}" type="image/svg+xml" />`);
      },
    },
  };
}

/** Our own chunk groups: named in codeSplitting below. */
const SHELL_CHUNK = 'shell';
const PUBLIC_PAGES_CHUNK = 'public-pages';

/**
 * Library chunks named for what they hold. Rolldown names a shared chunk after one module in it,
 * which misleads ('styles' held React DOM, 'zod' held react-hook-form, 'dist' held sonner); this
 * only renames, the grouping is rolldown's. The first library listed that a chunk holds names it.
 */
const LIBRARY_CHUNKS: ReadonlyArray<readonly [RegExp, string]> = [
  [/[\\/]node_modules[\\/]react-dom[\\/]/, 'react-dom'],
  [/[\\/]node_modules[\\/]react-router[\\/]/, 'react-router'],
  [/[\\/]node_modules[\\/]react-hook-form[\\/]/, 'forms'],
  [/[\\/]node_modules[\\/]zod[\\/]/, 'zod'],
  [/[\\/]node_modules[\\/](react-markdown|micromark[^\\/]*|mdast-util-[^\\/]*|remark-[^\\/]*)[\\/]/, 'markdown'],
  [/[\\/]node_modules[\\/]@tanstack[\\/]/, 'query'],
  [/[\\/]node_modules[\\/]sonner[\\/]/, 'toasts'],
  [/[\\/]node_modules[\\/]lightweight-charts[\\/]/, 'charts'],
  [/[\\/]node_modules[\\/]@radix-ui[\\/]/, 'radix'],
  [/[\\/]node_modules[\\/]lucide-react[\\/]/, 'icons'],
];
const isLibrary = (id: string) => /[\\/]node_modules[\\/]/.test(id);

/** A chunk that stands for one of our modules (an entry, a lazily loaded screen), one of our
 * groups, or one made mostly of our modules keeps rolldown's name (one of those modules'); a
 * chunk made mostly of a library, shared or loaded lazily, gets the library's name. */
function chunkName(chunk: { name: string; facadeModuleId: string | null; moduleIds: string[] }): string {
  const standsForOurs = chunk.facadeModuleId !== null && !isLibrary(chunk.facadeModuleId);
  if (standsForOurs || chunk.name === SHELL_CHUNK || chunk.name === PUBLIC_PAGES_CHUNK) return chunk.name;
  const libraries = chunk.moduleIds.filter(isLibrary).length;
  if (libraries <= chunk.moduleIds.length - libraries) return chunk.name;
  return LIBRARY_CHUNKS.find(([test]) => chunk.moduleIds.some((id) => test.test(id)))?.[1] ?? chunk.name;
}

export default defineConfig(({ isSsrBuild }) => ({
  root: 'client',
  publicDir: isSsrBuild ? false : 'public',
  // script/dev-client.ts adds the dev page's runtime config: the server's to give, not the build's.
  plugins: [react(), tailwindcss(), ...(isSsrBuild ? [] : [stylesheetFirst(), hydrateAfterPaint(), iconInSitePage(), precompress()])],
  // React Router 7 names only its development build in its package's exports (its issue 14753):
  // its warnings and checks would ride along in the budgeted first load. The browser's build
  // takes the production build it also ships, as React's own packages resolve to theirs.
  resolve: isSsrBuild ? {} : { alias: [{ find: /^react-router$/, replacement: path.resolve('node_modules/react-router/dist/production/index.mjs') }] },
  build: isSsrBuild
    ? { outDir: prerenderDir, emptyOutDir: true, target: 'node22', rolldownOptions: { input: path.resolve('client/prerender.tsx') } }
    : {
        outDir,
        emptyOutDir: true,
        target: 'es2022',
        sourcemap: false,
        // Every browser we support has native modulepreload; the polyfill would cost the budget.
        modulePreload: {
          polyfill: false,
          // The public pages preload no scripts: their HTML is complete without JavaScript, and
          // preloads would compete with the stylesheet and hero image for a phone's bandwidth
          // before the first paint (Lighthouse mobile: LCP 1.1 s without, 1.7-1.9 s with).
          // Their scripts load once the page has painted (`hydrateAfterPaint`).
          resolveDependencies: (_file, deps, { hostId, hostType }) => (hostType === 'html' && hostId.endsWith('site.html') ? [] : deps),
        },
        // The public pages (`/`, `/insights`) have their own page with a small entry; every
        // other path gets the whole app's page.
        rolldownOptions: {
          input: { index: path.resolve('client/index.html'), site: path.resolve('client/site.html') },
          output: {
            chunkFileNames: (chunk) => `assets/${chunkName(chunk)}-[hash].js`,
            // The shell every page loads (layout, header, sign-in state, UI primitives) as one
            // file: a dozen tiny chunks would each cost a request and their own compression
            // overhead on the budgeted first load. Only modules the public pages load anyway
            // belong here (no Radix, no query cache).
            codeSplitting: {
              groups: [
                {
                  name: SHELL_CHUNK,
                  test: /client[\\/](app[\\/](layout|header|app-root|error-boundary)\.tsx|app[\\/]preloadable\.ts|features[\\/]auth[\\/](components[\\/]auth-provider|lib[\\/]post-login-path|api[\\/]auth-api)\.tsx?|components[\\/](article-card|ui[\\/](avatar|badge|button|card|load-failed|skeleton|spinner|stroke-icon|toast-host|use-page-title))\.tsx?|lib[\\/](navigation|api-client|app-config|notify|auth-context)\.ts)$/,
                },
                // The public pages themselves: the app loads them only when it shows one.
                { name: PUBLIC_PAGES_CHUNK, test: /client[\\/]features[\\/](landing[\\/]|articles[\\/]components[\\/](insights|article)-view\.tsx)/ },
                // What only the server renders of a public page (an article's author, tags and
                // related articles, a tag's page: decision 0100) as one lazy file, so the site's
                // first load names one file to load in its place, not four.
                { name: 'article-parts', test: /client[\\/]features[\\/]articles[\\/]components[\\/](site-part|article-extras|tag-view)\.tsx$|contracts[\\/]tag-paths\.ts$/ },
              ],
            },
          },
        },
      },
  server: {
    port: 5173,
    proxy: { '/api': 'http://127.0.0.1:3000' },
  },
}));
