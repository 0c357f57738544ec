import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { brotliCompressSync, constants as zlib, gzipSync } from 'node:zlib';
import fastifyStatic from '@fastify/static';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { TPublicConfig } from '../../../contracts/auth.ts';
import { AppError } from '../errors.ts';
import { isAppRoute, SITE_PAGE_MARKER, type TSitePage } from '../../../contracts/site.ts';
import { escapeHtml, jsonForScript } from './html.ts';
import { metaTags, type PageMeta, type PageResolver, type ResolvedPage } from './page-meta.ts';
import { COMPRESS_MIN_BYTES, keepPublicAnswer, pickEncoding, type PublicSource } from './public-cache.ts';
import { allowScripts, inlineScriptSources } from './security-headers.ts';
import { builtSiteRenderer, type SiteRenderer } from './site-renderer.ts';

const IMMUTABLE = 'public, max-age=31536000, immutable';

/** Pages compressed lately, each way: the landing page and the app's page are the same string
 * request after request. */
const MAX_COMPRESSED = 32;
const compressedPages = new Map<string, { br?: Buffer; gzip?: Buffer }>();

/**
 * A page this file's not-found handler sends, compressed as @fastify/compress would (brotli
 * first, not under its threshold): that plugin compresses the answers of routes only, and the
 * landing page went out whole (14 KB where brotli sends 4). The public pages the public cache
 * keeps are not compressed here: it keeps the body as sent and compresses it itself.
 */
function sendPage(request: FastifyRequest, reply: FastifyReply, html: string): FastifyReply {
  const encoding = Buffer.byteLength(html) < COMPRESS_MIN_BYTES ? null : pickEncoding(request.headers['accept-encoding']);
  if (!encoding) return reply.send(html);
  let page = compressedPages.get(html);
  if (!page) {
    if (compressedPages.size >= MAX_COMPRESSED) compressedPages.delete(compressedPages.keys().next().value!);
    compressedPages.set(html, (page = {}));
  }
  const body = (page[encoding] ??= encoding === 'br' ? brotliCompressSync(html, { params: { [zlib.BROTLI_PARAM_QUALITY]: 4 } }) : gzipSync(html));
  return reply.header('content-encoding', encoding).header('vary', 'accept-encoding').send(body);
}

function configScript(config: TPublicConfig): string {
  return `<script type="application/json" id="app-config">${jsonForScript(config)}</script>`;
}

/**
 * A page template (index.html, or landing.html with the prerendered landing page) with the
 * runtime config in it, its placeholders filled (client/prerender.tsx names them) and, for
 * pages the server knows (an article), that page's title, description and Open Graph tags
 * instead of the site's.
 */
export function renderIndexHtml(template: string, config: TPublicConfig, meta?: PageMeta, year = new Date().getFullYear()): string {
  let html = template
    .replaceAll('%SITE_NAME%', escapeHtml(config.siteName))
    .replaceAll('%CONTACT_EMAIL%', escapeHtml(config.contactEmail))
    .replaceAll('%YEAR%', String(year));
  let head = configScript(config);
  if (meta) {
    const tags = metaTags(meta, config.siteName);
    html = html.replace(/<title>[\s\S]*?<\/title>/, () => `<title>${tags.title}</title>`).replace(/\s*<meta name="description"[^>]*>/, '');
    head = `${tags.head}\n    ${head}`;
  }
  return html.replace('<!--app-config-->', () => head);
}

/**
 * Serves the built client: hashed assets are immutable for a year and sent precompressed
 * (brotli or gzip, made at build time); `/` gets the prerendered landing page, and every page
 * of the app's router the app's HTML, so client-side routes work on reload. Any other page gets
 * the app's HTML with status 404 (the app shows its 404 screen there); a missing file under
 * /assets and unknown /api paths answer JSON 404.
 */
export async function registerClientApp(
  app: FastifyInstance,
  clientDir: string,
  config: TPublicConfig,
  resolvers: PageResolver[] = [],
  now: () => Date = () => new Date(),
  siteRenderer: () => Promise<SiteRenderer | null> = builtSiteRenderer(path.join(clientDir, '..', 'prerender', 'prerender.js')),
  /** What the /insights pages show: their answers are kept until it changes (docs/decisions/0051). */
  publicSource?: PublicSource,
): Promise<void> {
  const indexFile = path.join(clientDir, 'index.html');
  const built = existsSync(indexFile);
  const template = built
    ? readFileSync(indexFile, 'utf8')
    : '<!doctype html><title>Not built</title><p>The client is not built yet: run <code>npm run build</code>.</p>';
  const indexHtml = renderIndexHtml(template, config);
  const landingFile = path.join(clientDir, 'landing.html');
  const landingTemplate = existsSync(landingFile) ? readFileSync(landingFile, 'utf8') : null;
  // The landing page carries the footer's year, so its HTML is rebuilt when the year turns.
  let landing = { year: NaN, html: '' };
  const landingHtml = () => {
    const year = now().getFullYear();
    if (landing.year !== year) landing = { year, html: renderIndexHtml(landingTemplate ?? template, config, undefined, year) };
    return landing.html;
  };
  const siteFile = path.join(clientDir, 'site.html');
  const siteTemplate = existsSync(siteFile) ? readFileSync(siteFile, 'utf8') : null;
  /** A public page the server renders (/insights with its articles, an article's page), or null
   * to send the app's page instead, which renders it in the browser. */
  const renderSitePage = async (url: string, page: ResolvedPage & { site: TSitePage }): Promise<string | null> => {
    const render = siteTemplate ? await siteRenderer() : null;
    if (!siteTemplate || !render) return null;
    const year = now().getFullYear();
    try {
      const body = await render(url, page.site, config, String(year), page.meta.url);
      const data = `<script type="application/json" id="site-page">${jsonForScript(page.site)}</script>`;
      const filled = siteTemplate.replace(SITE_PAGE_MARKER, () => body).replace('</body>', () => `${data}\n  </body>`);
      return renderIndexHtml(filled, config, page.meta, year);
    } catch (err) {
      app.log.error({ err, url }, 'rendering a public page failed; sending the app page instead');
      return null;
    }
  };
  // The public pages carry their boot script in the page (vite.config.ts `hydrateAfterPaint`):
  // their CSP allows it, and only it, by its hash.
  const siteScripts = inlineScriptSources(siteTemplate ?? landingTemplate ?? '');
  let siteCsp = { from: '', to: '' };
  const allowSiteScripts = (reply: FastifyReply) => {
    const csp = String(reply.getHeader('content-security-policy') ?? '');
    if (siteCsp.from !== csp) siteCsp = { from: csp, to: allowScripts(csp, siteScripts) };
    reply.header('content-security-policy', siteCsp.to);
  };
  // Resolvers return the same meta object while a page is unchanged, so its HTML is built once.
  const rendered = new WeakMap<PageMeta, string>();
  const renderPage = (meta: PageMeta) => {
    let html = rendered.get(meta);
    if (html === undefined) {
      html = renderIndexHtml(template, config, meta);
      rendered.set(meta, html);
    }
    return html;
  };

  if (built) {
    await app.register(fastifyStatic, {
      root: clientDir,
      index: false,
      wildcard: false,
      preCompressed: true,
      // The page templates are served filled in, by the handler below, never raw.
      allowedPath: (pathName) => !pathName.endsWith('.html'),
      setHeaders(res, filePath) {
        const relative = path.relative(clientDir, filePath);
        res.header('cache-control', relative.startsWith(`assets${path.sep}`) ? IMMUTABLE : 'public, max-age=3600');
      },
    });
  }

  app.setNotFoundHandler(async (request, reply) => {
    const url = request.url;
    if (url === '/api' || url.startsWith('/api/') || url.startsWith('/api?')) {
      throw new AppError('NOT_FOUND', `No API route ${request.method} ${url.split('?')[0]}`);
    }
    if (request.method !== 'GET' && request.method !== 'HEAD') throw new AppError('NOT_FOUND');
    const [pathname = '/', search = ''] = url.split('?', 2);
    // A script or source map the build does not have (an old page after a deploy, a probe):
    // the app's HTML in its place would fail as a script, or be mistaken for the file.
    if (pathname.startsWith('/assets/')) throw new AppError('NOT_FOUND', 'No such file');
    reply.header('cache-control', 'no-cache').type('text/html; charset=utf-8');
    if (pathname === '/') {
      if (landingTemplate) allowSiteScripts(reply);
      return sendPage(request, reply, landingHtml());
    }
    // Before the page's data is read, so an answer made from data older than a change is not kept.
    if (publicSource && pathname.startsWith('/insights')) keepPublicAnswer(request, publicSource);
    for (const resolve of resolvers) {
      const page = await resolve(pathname, new URLSearchParams(search));
      if (!page) continue;
      const site = page.site ? await renderSitePage(url, { ...page, site: page.site }) : null;
      if (site) allowSiteScripts(reply);
      reply.status(page.status);
      // A page the public cache may keep goes out as it is: the cache compresses what it keeps.
      return (request.publicVersion ?? null) === null ? sendPage(request, reply, site ?? renderPage(page.meta)) : reply.send(site ?? renderPage(page.meta));
    }
    return sendPage(request, reply.status(isAppRoute(pathname) ? 200 : 404), indexHtml);
  });
}
