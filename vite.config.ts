import { brotliCompressSync, constants, gzipSync } from 'node:zlib';
import { readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import tailwindcss from '@tailwindcss/vite';
import react from '@vitejs/plugin-react';
import { defineConfig, type Plugin } from 'vite';
import { loadConfig, publicConfig } from './server/config.ts';
import { renderIndexHtml } from './server/lib/http/client-app.ts';

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

/** In dev, Vite serves index.html itself: give it the same runtime config the server injects. */
function devRuntimeConfig(): Plugin {
  return {
    name: 'dev-runtime-config',
    apply: 'serve',
    transformIndexHtml: (html) => renderIndexHtml(html, publicConfig(loadConfig(process.env, { inMemoryDatabase: true }))),
  };
}

export default defineConfig(({ isSsrBuild }) => ({
  root: 'client',
  publicDir: isSsrBuild ? false : 'public',
  plugins: [react(), tailwindcss(), devRuntimeConfig(), ...(isSsrBuild ? [] : [stylesheetFirst(), precompress()])],
  build: isSsrBuild
    ? { outDir: prerenderDir, emptyOutDir: true, target: 'node22', rollupOptions: { input: path.resolve('client/prerender.tsx') } }
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
          // The entry's imports are fetched as soon as it arrives.
          resolveDependencies: (_file, deps, { hostId, hostType }) => (hostType === 'html' && hostId.endsWith('site.html') ? [] : deps),
        },
        // The public pages (`/`, `/insights`) have their own page with a small entry; every
        // other path gets the whole app's page.
        rollupOptions: {
          input: { index: path.resolve('client/index.html'), site: path.resolve('client/site.html') },
          output: {
            // The public pages' own modules as one file: a dozen tiny chunks would each cost a
            // request and their own compression overhead on the budgeted first load. Only modules
            // those pages load anyway belong here (no Radix, no query cache).
            advancedChunks: {
              groups: [
                {
                  name: 'site',
                  test: /client[\\/](app[\\/](layout|header|app-root|error-boundary)\.tsx|features[\\/]auth[\\/](auth-provider|post-login-path|api[\\/]auth-api)\.tsx?|components[\\/](article-card|ui[\\/](avatar|badge|button|card|load-failed|skeleton|spinner|stroke-icon|toast-host|use-page-title))\.tsx?|lib[\\/](navigation|api-client|app-config|notify|auth-context)\.ts)$/,
                },
                // The public pages themselves: the app loads them only when it shows one.
                { name: 'site-pages', test: /client[\\/]features[\\/](landing[\\/]|articles[\\/]insights-view\.tsx)/ },
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
