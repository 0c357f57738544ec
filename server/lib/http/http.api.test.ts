import { createHash } from 'node:crypto';
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { brotliCompressSync, brotliDecompressSync, gunzipSync, gzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../../test/test-app.ts';

/** The public pages' script written into them (vite.config.ts `hydrateAfterPaint`). */
const BOOT_SCRIPT = 'import(document.querySelector("script[data-hydrate]").dataset.hydrate)';
const BOOT_TAG = `<script type="module" data-hydrate="/assets/index-abc123.js">${BOOT_SCRIPT}</script>`;

/** A fake built client: index.html with the config placeholder, a hashed asset precompressed. */
function fakeClientDir(): string {
  const build = mkdtempSync(path.join(tmpdir(), 'build-'));
  const dir = path.join(build, 'client');
  mkdirSync(path.join(dir, 'assets'), { recursive: true });
  // The public pages' template and a stand-in for the built server renderer (dist/prerender):
  // it shows what it was given, and fails for page 13 to show the fallback.
  writeFileSync(
    path.join(dir, 'site.html'),
    `<!doctype html><html><head><title>%SITE_NAME%</title><meta name="description" content="Site" /><!--app-config--></head><body><div id="root"><!--site-page--></div>${BOOT_TAG}</body></html>`,
  );
  mkdirSync(path.join(build, 'prerender'));
  writeFileSync(
    path.join(build, 'prerender', 'prerender.js'),
    `export async function renderSitePage(location, page, config, year, pageUrl) {
      if (page.kind === 'article') return '<article data-url="' + pageUrl + '"><h1>' + page.article.slug + '</h1></article>';
      if (page.page === 13) throw new Error('renderer broke');
      return '<main data-location="' + location + '" data-year="' + year + '" data-site="' + config.siteName.length + '">' + page.list.items.map((a) => '<h2>' + a.slug + '</h2>').join('') + '</main>';
    }`,
  );
  // Pages of the size real ones have (over the compression threshold).
  const padding = `<noscript>${'Automation pays when it removes a decision nobody needed to make. '.repeat(30)}</noscript>`;
  writeFileSync(path.join(dir, 'index.html'), `<!doctype html><title>%SITE_NAME%</title><!--app-config--><div id="root"></div>${padding}`);
  // The prerendered landing page, with the placeholders client/prerender.tsx leaves in it.
  writeFileSync(
    path.join(dir, 'landing.html'),
    `<!doctype html><title>%SITE_NAME%</title><!--app-config--><div id="root"><h1>Landing</h1><a href="mailto:%CONTACT_EMAIL%">%CONTACT_EMAIL%</a><p>© %YEAR% %SITE_NAME%</p></div>${BOOT_TAG}${padding}`,
  );
  const js = `console.log(${JSON.stringify('x'.repeat(4000))});`;
  writeFileSync(path.join(dir, 'assets', 'index-abc123.js'), js);
  writeFileSync(path.join(dir, 'assets', 'index-abc123.js.br'), brotliCompressSync(js));
  writeFileSync(path.join(dir, 'assets', 'index-abc123.js.gz'), gzipSync(js));
  writeFileSync(path.join(dir, 'favicon.svg'), '<svg xmlns="http://www.w3.org/2000/svg"/>');
  return dir;
}

describe('HTTP conventions', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp({ clientDir: fakeClientDir(), env: { SITE_NAME: 'Acme <Automation>', CONTACT_EMAIL: 'team@acme.test', CHAT_POLICY: 'deepseek=admin,openai=signedIn' } });
  });
  afterAll(async () => t.close());

  it('answers unknown /api paths with JSON 404, any method', async () => {
    for (const [method, url] of [['GET', '/api/nope'], ['POST', '/api/nope'], ['GET', '/api']] as const) {
      const res = await t.request({ method, url, payload: method === 'POST' ? {} : undefined });
      expect(res.statusCode, url).toBe(404);
      expect(res.headers['content-type']).toMatch(/^application\/json/);
      expect(res.json().error).toBe('Not Found');
    }
  });

  it('serves the app HTML for client routes, with the runtime config escaped into it', async () => {
    for (const url of ['/', '/dashboard', '/admin/articles/1234/edit', '/insights/']) {
      const res = await t.request({ url });
      expect(res.statusCode, url).toBe(200);
      expect(res.headers['content-type']).toMatch(/^text\/html/);
      expect(res.headers['cache-control']).toBe('no-cache');
    }
    const html = (await t.request({ url: '/dashboard' })).body;
    expect(html).toContain('<title>Acme &#60;Automation&#62;</title>');
    const json = /<script type="application\/json" id="app-config">(.*?)<\/script>/.exec(html)![1]!;
    expect(json).not.toContain('<');
    expect(JSON.parse(json)).toEqual({
      siteName: 'Acme <Automation>',
      contactEmail: 'team@acme.test',
      authProvider: 'local',
      // No provider, outside production: the development sign-in and passkeys (docs/decisions/0092).
      localSignIn: true,
      passkeys: true,
      // CHAT_POLICY over the defaults: the Users page says what guests may use from it.
      chatPolicy: { openai: 'signedIn', anthropic: 'admin', gemini: 'admin', grok: 'admin', deepseek: 'admin', llama: 'signedIn' },
      // No WHALE_ALERT_API_KEY: the wizard starts on-chain metrics off.
      sources: { onChain: false },
      // No CHAT_SHARE_ROLES: nobody is offered Share.
      shareRoles: [],
    });
  });

  it('serves / the prerendered landing page with the site name, contact address and year filled in', async () => {
    const res = await t.request({ url: '/' });
    expect(res.statusCode).toBe(200);
    expect(res.headers['cache-control']).toBe('no-cache');
    expect(res.body).toContain('<h1>Landing</h1>');
    expect(res.body).toContain('<a href="mailto:team@acme.test">team@acme.test</a>');
    expect(res.body).toContain(`<p>© ${t.now().getFullYear()} Acme &#60;Automation&#62;</p>`);
    expect(res.body).not.toMatch(/%[A-Z_]+%/);
    expect(res.body).toContain('id="app-config"');
    // Every other page is the app's page.
    expect((await t.request({ url: '/insights' })).body).not.toContain('<h1>Landing</h1>');
  });

  it('renders /insights on the server with its articles, and sends what it rendered from for hydration', async () => {
    const admin = await t.signIn('admin@example.com');
    const created = await t.request({
      method: 'POST',
      url: '/api/articles',
      cookie: admin,
      payload: { title: 'Ends a script </script><script>x()</script>', category: 'Automation', excerpt: 'An excerpt long enough.', content: 'Content long enough to pass the article rules, surely by now.', published: true },
    });
    expect(created.statusCode).toBe(201);

    const res = await t.request({ url: '/insights?page=1' });
    expect(res.statusCode).toBe(200);
    expect(res.body).toContain('<title>Insights · Acme &#60;Automation&#62;</title>');
    expect(res.body).toContain(`<main data-location="/insights?page=1" data-year="${t.now().getFullYear()}" data-site="17"><h2>ends-a-script-script-script-x-script</h2></main>`);
    const json = /<script type="application\/json" id="site-page">(.*?)<\/script>/.exec(res.body)![1]!;
    // The article's own "</script>" cannot close the data element.
    expect(json).not.toContain('<');
    expect(JSON.parse(json)).toMatchObject({ kind: 'insights', page: 1, list: { total: 1, items: [{ title: 'Ends a script </script><script>x()</script>' }] } });

    // A renderer failure is logged and the app's page goes out instead, rendering in the browser.
    const fallback = await t.request({ url: '/insights?page=13' });
    expect(fallback.statusCode).toBe(200);
    expect(fallback.body).not.toContain('site-page');
    expect(fallback.body).toContain('<div id="root"></div>');
  });

  it("renders an article's page on the server at its public address, and sends the article's public fields for hydration", async () => {
    const admin = await t.signIn('admin@example.com');
    const created = await t.request({
      method: 'POST',
      url: '/api/articles',
      cookie: admin,
      payload: { title: 'Rendered article', category: 'Automation', excerpt: 'An excerpt long enough.', content: 'Content long enough to pass the article rules, surely by now.', published: true },
    });
    expect(created.statusCode).toBe(201);
    const { slug, authorId } = created.json() as { slug: string; authorId: string };

    const res = await t.request({ url: `/insights/${slug}` });
    expect(res.statusCode).toBe(200);
    expect(res.body).toContain('<title>Rendered article · Acme &#60;Automation&#62;</title>');
    expect(res.body).toContain(`<div id="root"><article data-url="http://localhost:3000/insights/${slug}"><h1>${slug}</h1></article></div>`);
    const json = /<script type="application\/json" id="site-page">(.*?)<\/script>/.exec(res.body)![1]!;
    const site = JSON.parse(json) as { kind: string; article: Record<string, unknown> };
    expect(site.kind).toBe('article');
    // The author by name and photo, never by id (decision 0100); the cover's <img> (0099).
    expect(Object.keys(site.article).sort()).toEqual(['content', 'createdAt', 'publishedAt', 'excerpt', 'id', 'readTime', 'slug', 'title', 'category', 'metaTitle', 'metaDescription', 'tags', 'cover', 'author', 'related'].sort());
    expect(res.body).not.toContain(authorId);

    // Unknown, or a draft: 404 with the app's page, which says the article is not found.
    await t.request({ method: 'PATCH', url: `/api/articles/${created.json().id}`, cookie: admin, payload: { published: false } });
    for (const url of [`/insights/${slug}`, '/insights/no-such-article']) {
      const missing = await t.request({ url });
      expect(missing.statusCode, url).toBe(404);
      expect(missing.body, url).not.toContain('site-page');
      expect(missing.body, url).toContain('<div id="root"></div>');
    }
  });

  it('answers an unknown page 404 with the app (which shows its 404 screen), and a missing asset 404', async () => {
    for (const url of ['/some/unknown/page', '/x.bak', '/.env', '/dashboard/extra', '/favicon.svg.map']) {
      const res = await t.request({ url });
      expect(res.statusCode, url).toBe(404);
      expect(res.headers['content-type'], url).toMatch(/^text\/html/);
      expect(res.body, url).toContain('id="app-config"');
    }
    for (const url of ['/assets/index-missing.js', '/assets/index-abc123.js.map', '/assets/nested/x.css']) {
      const res = await t.request({ url });
      expect(res.statusCode, url).toBe(404);
      expect(res.headers['content-type'], url).toMatch(/^application\/json/);
      expect(res.body, url).not.toContain('<');
    }
  });

  it('never serves a page template raw', async () => {
    for (const url of ['/landing.html', '/index.html', '/site.html']) {
      const res = await t.request({ url });
      expect(res.statusCode, url).toBe(404); // not pages of the app
      expect(res.body, url).not.toMatch(/%[A-Z_]+%|<!--app-config-->/);
    }
  });

  it('serves hashed assets immutable and precompressed, brotli first', async () => {
    const br = await t.request({ url: '/assets/index-abc123.js', headers: { 'accept-encoding': 'br, gzip' } });
    expect(br.statusCode).toBe(200);
    expect(br.headers['content-encoding']).toBe('br');
    expect(br.headers['cache-control']).toBe('public, max-age=31536000, immutable');
    const gz = await t.request({ url: '/assets/index-abc123.js', headers: { 'accept-encoding': 'gzip' } });
    expect(gz.headers['content-encoding']).toBe('gzip');
    const plain = await t.request({ url: '/favicon.svg' });
    expect(plain.headers['cache-control']).toBe('public, max-age=3600');
  });

  it('sends the security headers, with a CSP that forbids inline script, framing and plugins', async () => {
    const res = await t.request({ url: '/' });
    const csp = String(res.headers['content-security-policy']);
    expect(csp).toContain("script-src 'self'");
    expect(csp).not.toMatch(/script-src[^;]*unsafe-inline/);
    expect(csp).toContain("frame-ancestors 'none'");
    expect(csp).toContain("object-src 'none'");
    expect(res.headers['x-content-type-options']).toBe('nosniff');
    expect(res.headers['referrer-policy']).toBe('strict-origin-when-cross-origin');
    expect(res.headers['strict-transport-security']).toBeUndefined(); // http: no HSTS
  });

  it("allows the public pages' own script by its hash, and no other inline script anywhere", async () => {
    const admin = await t.signIn('admin@example.com');
    const created = await t.request({
      method: 'POST',
      url: '/api/articles',
      cookie: admin,
      payload: { title: 'Allowed by hash', category: 'Automation', excerpt: 'An excerpt long enough.', content: 'Content long enough to pass the article rules, surely by now.', published: true },
    });
    expect(created.statusCode).toBe(201);
    const hash = createHash('sha256').update(BOOT_SCRIPT).digest('base64');
    for (const url of ['/', '/insights', `/insights/${(created.json() as { slug: string }).slug}`]) {
      const res = await t.request({ url });
      expect(res.body, url).toContain(BOOT_TAG);
      const scriptSrc = /(?:^|;)\s*script-src ([^;]*)/.exec(String(res.headers['content-security-policy']))?.[1];
      expect(scriptSrc, url).toBe(`'self' 'sha256-${hash}'`);
    }
    for (const url of ['/dashboard', '/no-such-page', '/insights/no-such-article', '/insights?page=13']) {
      const res = await t.request({ url });
      expect(res.body, url).not.toContain(BOOT_TAG);
      expect(/(?:^|;)\s*script-src ([^;]*)/.exec(String(res.headers['content-security-policy']))?.[1], url).toBe("'self'");
    }
  });

  it('refuses a body over 1 MB with 413 JSON', async () => {
    const res = await t.request({
      method: 'POST',
      url: '/api/auth/local/login',
      payload: JSON.stringify({ email: 'a@example.com', name: 'x'.repeat(1024 * 1024) }),
      headers: { 'content-type': 'application/json' },
    });
    expect(res.statusCode).toBe(413);
    expect(res.json()).toEqual({ error: 'Payload Too Large', message: 'Request body is larger than 1 MB' });
  });

  it('keeps a 400 small: 50,000 unknown keys are named in a clipped message, a flood of problems is counted', async () => {
    const admin = await t.signIn('admin@example.com'); // the first account: admin
    const unknown = Object.fromEntries(Array.from({ length: 50_000 }, (_, i) => [`k${i}`, 1]));
    const keys = await t.request({ method: 'PUT', url: '/api/settings', cookie: admin, payload: { ...unknown, alertEmail: null, timeZone: 'UTC' } });
    expect(keys.statusCode).toBe(400);
    expect(keys.body.length).toBeLessThan(1_000);
    const [detail, ...others] = keys.json().details as Array<{ path: string; message: string }>;
    expect(others).toEqual([]);
    expect(detail!.message).toMatch(/^Unrecognized keys: "k0", "k1", .*…$/);
    expect(detail!.message).toHaveLength(200);

    // 800 parameters with names too long, each a problem of its own whose path holds the name,
    // and the unknown template (every refused field at once): 20 are listed, each clipped, and
    // one more detail counts the rest.
    const parameters = Object.fromEntries(Array.from({ length: 800 }, (_, i) => [`${i}${'p'.repeat(1_000)}`, true]));
    const config = { schedule: { frequency: 'hourly', daysActive: ['Monday'], timeZone: 'UTC' }, notifications: { email: false, inApp: true, thresholds: [] }, parameters };
    const many = await t.request({ method: 'POST', url: '/api/agents', cookie: admin, payload: { templateId: 'x', name: 'Flood', config } });
    expect(many.statusCode).toBe(400);
    const details = many.json().details as Array<{ path: string; message: string }>;
    expect(details).toHaveLength(21);
    expect(details[0]!.path).toMatch(/^config\.parameters\.0p+…$/);
    expect(details[0]!.path).toHaveLength(200);
    expect(details.at(-1)).toEqual({ path: '(more)', message: '781 more problems not listed' });
    expect(many.body.length).toBeLessThan(10_000);
  });

  it("sends the landing page and the app's page compressed, brotli first, as it does the routes' answers", async () => {
    for (const url of ['/', '/dashboard', '/no-such-page']) {
      const plain = await t.request({ url });
      expect(plain.headers['content-encoding'], url).toBeUndefined();
      const br = await t.request({ url, headers: { 'accept-encoding': 'gzip, deflate, br' } });
      expect(br.headers['content-encoding'], url).toBe('br');
      expect(br.headers.vary, url).toMatch(/accept-encoding/i);
      expect(br.statusCode, url).toBe(plain.statusCode);
      expect(brotliDecompressSync(br.rawPayload).toString(), url).toBe(plain.body);
      expect(br.rawPayload.length, url).toBeLessThan(plain.rawPayload.length / 2);
      const gzip = await t.request({ url, headers: { 'accept-encoding': 'gzip' } });
      expect(gzip.headers['content-encoding'], url).toBe('gzip');
      expect(gunzipSync(gzip.rawPayload).toString(), url).toBe(plain.body);
    }
  });

  it('compresses larger JSON answers', async () => {
    const cookie = await t.signIn('admin@example.com');
    for (let i = 0; i < 20; i++) await t.signIn(`user${i}-with-a-rather-long-address@example.com`, `User number ${i}`);
    const res = await t.request({ url: '/api/users', cookie, headers: { 'accept-encoding': 'gzip' } });
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-encoding']).toBe('gzip');
  });
});

describe('over https', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp({ env: { PUBLIC_URL: 'https://app.example.com' } });
  });
  afterAll(async () => t.close());

  it('uses a Secure __Host- cookie and sends HSTS', async () => {
    const res = await t.app.inject({
      method: 'POST',
      url: '/api/auth/local/login',
      payload: { email: 'a@example.com', name: 'A' },
      headers: { origin: 'https://app.example.com' },
    });
    expect(res.statusCode).toBe(200);
    const cookie = res.cookies.find((c) => c.name === '__Host-sid')!;
    expect(cookie).toMatchObject({ secure: true, httpOnly: true, sameSite: 'Lax', path: '/' });
    expect(cookie.domain).toBeUndefined();
    expect(res.headers['strict-transport-security']).toContain('max-age=31536000');
    const me = await t.app.inject({ url: '/api/auth/me', headers: { cookie: `__Host-sid=${cookie.value}` } });
    expect(me.json().user.email).toBe('a@example.com');
  });
});
