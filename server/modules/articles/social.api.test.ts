import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { shortPayloads, XSS_MARKER } from '../../../tests/e2e/support/xss-corpus.ts';
import { siteBuildDir } from '../../test/site-build.ts';
import { createTestApp, type TestApp } from '../../test/test-app.ts';

const ORIGIN = 'http://localhost:3000';
const valid = {
  title: 'Automating invoices end to end',
  category: 'Automation',
  readTime: '6 min read',
  excerpt: 'How one finance team stopped retyping invoices.',
  content: `# Invoices\n\n${'A paragraph about automation. '.repeat(3)}`,
  published: true,
};

const ISO_8601 = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})$/;
const ABSOLUTE_URL = /^https?:\/\/[^\s/]+\//;

function unescapeHtml(text: string): string {
  return text.replace(/&#(\d+);/g, (_m, code: string) => String.fromCodePoint(Number(code))).replace(/&(amp|lt|gt|quot);/g, (_m, name: string) => ({ amp: '&', lt: '<', gt: '>', quot: '"' })[name]!);
}

/** The page's <meta property|name=... content=...> tags, values unescaped, repeated keys kept. */
function metaOf(html: string): Map<string, string[]> {
  const tags = new Map<string, string[]>();
  for (const [, key, value] of html.matchAll(/<meta (?:property|name)="([^"]+)" content="([^"]*)" \/>/g)) {
    tags.set(key!, [...(tags.get(key!) ?? []), unescapeHtml(value!)]);
  }
  return tags;
}

function jsonLdOf(html: string): Array<Record<string, unknown>> {
  return [...html.matchAll(/<script type="application\/ld\+json">([\s\S]*?)<\/script>/g)].map(([, json]) => JSON.parse(json!) as Record<string, unknown>);
}

/** Width and height from a PNG's IHDR chunk, which the PNG specification puts first. */
function pngSize(png: Buffer): { width: number; height: number } {
  expect([...png.subarray(0, 8)]).toEqual([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
  expect(png.subarray(12, 16).toString('latin1')).toBe('IHDR');
  return { width: png.readUInt32BE(16), height: png.readUInt32BE(20) };
}

describe('search and social', () => {
  let t: TestApp;
  let admin: string;
  beforeAll(async () => {
    t = await createTestApp({ clientDir: siteBuildDir(), env: { SITE_NAME: 'Acme', ADMIN_EMAILS: 'admin@example.com' } });
    admin = await t.signIn('admin@example.com', 'Ada Admin');
  });
  afterAll(async () => t.close());

  const create = (body: object) => t.request({ method: 'POST', url: '/api/articles', payload: body, cookie: admin });
  const patch = (id: string, body: object) => t.request({ method: 'PATCH', url: `/api/articles/${id}`, payload: body, cookie: admin });
  const page = async (slug: string) => (await t.request({ url: `/insights/${slug}` })).body;

  it("an article page's head meets Open Graph's rules, with the generated card, and falls back to the title, excerpt and own URL", async () => {
    const article = (await create({ ...valid, title: 'Forecasting demand with ML' })).json();
    expect(article).toMatchObject({ metaTitle: null, metaDescription: null, canonicalUrl: null });
    const html = await page(article.slug);
    const meta = metaOf(html);
    const own = `${ORIGIN}/insights/${article.slug}`;
    // ogp.me: og:title, og:type, og:image and og:url are required, one each.
    for (const key of ['og:title', 'og:type', 'og:image', 'og:url']) expect(meta.get(key), key).toHaveLength(1);
    expect(meta.get('og:title')).toEqual(['Forecasting demand with ML · Acme']);
    expect(meta.get('og:type')).toEqual(['article']);
    expect(meta.get('og:url')).toEqual([own]);
    expect(html).toContain(`<link rel="canonical" href="${own}" />`);
    expect(meta.get('description')).toEqual([valid.excerpt]);
    expect(meta.get('og:description')).toEqual([valid.excerpt]);
    const [image] = meta.get('og:image')!;
    expect(image).toMatch(new RegExp(`^${ORIGIN}/og/${article.slug}/[0-9a-f]{16}\\.png$`));
    expect(meta.get('og:image:width')).toEqual(['1200']);
    expect(meta.get('og:image:height')).toEqual(['630']);
    expect(meta.get('og:image:type')).toEqual(['image/png']);
    expect(meta.get('og:image:alt')![0]).toContain('Forecasting demand with ML');
    expect(meta.get('twitter:card')).toEqual(['summary_large_image']);
    // The article's own properties: ISO 8601 times, its section and its tag.
    expect(meta.get('article:published_time')![0]).toMatch(ISO_8601);
    expect(meta.get('article:modified_time')![0]).toMatch(ISO_8601);
    expect(meta.get('article:section')).toEqual(['Automation']);
    expect(meta.get('article:tag')).toEqual(['Automation']);
  });

  it("uses the article's own meta title, description and canonical URL when set, in the tags and the JSON-LD", async () => {
    const article = (
      await create({ ...valid, title: 'Cross-posted piece', metaTitle: 'Cross-posting, done right', metaDescription: 'Why a canonical URL matters.', canonicalUrl: ' https://blog.example.com/cross-posted ' })
    ).json();
    expect(article).toMatchObject({ metaTitle: 'Cross-posting, done right', metaDescription: 'Why a canonical URL matters.', canonicalUrl: 'https://blog.example.com/cross-posted' });
    const html = await page(article.slug);
    const meta = metaOf(html);
    expect(html).toContain('<title>Cross-posting, done right</title>');
    expect(meta.get('og:title')).toEqual(['Cross-posting, done right']);
    expect(meta.get('description')).toEqual(['Why a canonical URL matters.']);
    expect(meta.get('og:url')).toEqual(['https://blog.example.com/cross-posted']);
    expect(html).toContain('<link rel="canonical" href="https://blog.example.com/cross-posted" />');
    const [ld] = jsonLdOf(html);
    expect(ld).toMatchObject({ description: 'Why a canonical URL matters.', mainEntityOfPage: { '@type': 'WebPage', '@id': 'https://blog.example.com/cross-posted' } });
    // A sitemap lists canonical pages only; the feed still carries it.
    expect((await t.request({ url: '/sitemap.xml' })).body).not.toContain(article.slug);
    expect((await t.request({ url: '/rss.xml' })).body).toContain(article.slug);
    expect(JSON.stringify((await t.request({ url: '/api/articles' })).json())).not.toContain('canonicalUrl');

    // Blank or null clears a field back to its fallback.
    const cleared = (await patch(article.id, { metaTitle: '', metaDescription: null, canonicalUrl: '  ' })).json();
    expect(cleared).toMatchObject({ metaTitle: null, metaDescription: null, canonicalUrl: null });
    expect(metaOf(await page(article.slug)).get('og:url')).toEqual([`${ORIGIN}/insights/${article.slug}`]);
    expect((await t.request({ url: '/sitemap.xml' })).body).toContain(article.slug);
  });

  it('refuses a meta title, description or canonical URL that breaks its rule, with the field, and changes nothing', async () => {
    const cases: Array<[object, string, string]> = [
      [{ metaTitle: 'x'.repeat(71) }, 'metaTitle', 'Meta title must be at most 70 characters'],
      [{ metaDescription: 'x'.repeat(161) }, 'metaDescription', 'Meta description must be at most 160 characters'],
      [{ canonicalUrl: '/insights/relative' }, 'canonicalUrl', 'Canonical URL must be an absolute http:// or https:// address'],
      [{ canonicalUrl: 'javascript:alert(1)' }, 'canonicalUrl', 'Canonical URL must be an absolute http:// or https:// address'],
      [{ canonicalUrl: 'ftp://example.com/file' }, 'canonicalUrl', 'Canonical URL must be an absolute http:// or https:// address'],
      [{ canonicalUrl: 'https://' }, 'canonicalUrl', 'Canonical URL must be an absolute http:// or https:// address'],
    ];
    const article = (await create({ ...valid, title: 'Rules for search fields' })).json();
    for (const [fields, path, message] of cases) {
      const created = await create({ ...valid, ...fields });
      expect(created.statusCode, JSON.stringify(fields)).toBe(400);
      expect(created.json().details).toEqual([{ path, message }]);
      const patched = await patch(article.id, fields);
      expect(patched.statusCode).toBe(400);
      expect(patched.json().details).toEqual([{ path, message }]);
    }
    expect((await t.request({ url: `/api/admin/articles/${article.id}`, cookie: admin })).json()).toMatchObject({ metaTitle: null, metaDescription: null, canonicalUrl: null });
    // At the limits exactly, accepted.
    expect((await patch(article.id, { metaTitle: 'x'.repeat(70), metaDescription: 'y'.repeat(160) })).statusCode).toBe(200);
  });

  it("writes JSON-LD Article as schema.org and Google's article structured data ask for it", async () => {
    const article = (await create({ ...valid, title: 'Structured data for articles' })).json();
    const html = await page(article.slug);
    const lds = jsonLdOf(html);
    expect(lds).toHaveLength(1);
    const ld = lds[0]!;
    expect(ld['@context']).toBe('https://schema.org');
    expect(ld['@type']).toBe('Article');
    expect(ld.headline).toBe('Structured data for articles');
    expect((ld.headline as string).length).toBeLessThanOrEqual(110);
    expect(ld.description).toBe(valid.excerpt);
    for (const date of [ld.datePublished, ld.dateModified]) {
      expect(date).toMatch(ISO_8601);
      expect(new Date(date as string).toISOString()).toBe(date);
    }
    expect(ld.datePublished).toBe(article.createdAt);
    expect(ld.dateModified).toBe(article.updatedAt);
    expect(ld.image).toEqual([metaOf(html).get('og:image')![0]]);
    for (const url of ld.image as string[]) expect(url).toMatch(ABSOLUTE_URL);
    expect(ld.author).toEqual({ '@type': 'Person', name: 'Ada Admin' });
    expect(ld.publisher).toEqual({ '@type': 'Organization', name: 'Acme', url: `${ORIGIN}/` });
    expect(ld.mainEntityOfPage).toEqual({ '@type': 'WebPage', '@id': `${ORIGIN}/insights/${article.slug}` });

    // A title over Google's 110 characters is cut in the headline, not in the page.
    const long = (await create({ ...valid, title: `A long title ${'about automation '.repeat(11)}`.trim() })).json();
    const [longLd] = jsonLdOf(await page(long.slug));
    expect((longLd!.headline as string).length).toBe(110);
  });

  it('keeps hostile text in the title, meta fields and canonical URL inert in the head and the JSON-LD', async () => {
    const hostile = {
      ...valid,
      title: 'Closing </script><script>alert("t")</script> early',
      metaTitle: '</title><script>alert(1)</script>',
      metaDescription: '"><img src=x onerror=alert(1)> & \u2028',
      canonicalUrl: 'https://example.com/"><script>alert(1)</script>',
    };
    const article = (await create(hostile)).json();
    const html = await page(article.slug);
    expect(html).not.toContain('<script>alert');
    expect(html).not.toContain('<img src=x');
    expect(html).not.toContain('</title><script>');
    // Exactly the page's own scripts: the config, the site's data and the JSON-LD.
    expect(html.match(/<script\b/g)).toHaveLength(3);
    const meta = metaOf(html);
    expect(meta.get('og:title')).toEqual([hostile.metaTitle]);
    expect(meta.get('description')).toEqual([hostile.metaDescription.trim()]);
    const [ld] = jsonLdOf(html);
    expect(ld!.headline).toBe(hostile.title);
    expect(ld!.description).toBe(hostile.metaDescription.trim());
    expect(ld!.url).toBe(hostile.canonicalUrl);
  });

  it("keeps the XSS corpus inert through the meta title, description, canonical URL and title: only in attribute values and the JSON-LD's strings", async () => {
    for (const payload of Object.values(shortPayloads('seo'))) {
      const fields = { title: `Title ${payload.text}`, metaTitle: payload.text, metaDescription: payload.text, canonicalUrl: `https://example.com/${payload.text}` };
      const created = await create({ ...valid, ...fields });
      expect(created.statusCode, payload.id).toBe(201);
      const article = created.json();
      const html = await page(article.slug);
      const [ld] = jsonLdOf(html);
      expect(ld!.headline, payload.id).toBe(fields.title);
      expect(ld!.description, payload.id).toBe(fields.metaDescription);
      expect(ld!.url, payload.id).toBe(article.canonicalUrl);
      expect(metaOf(html).get('og:title'), payload.id).toEqual([fields.metaTitle]);
      // Without the attribute values and the JSON-LD, nothing of the payload is left.
      const rest = html
        .replace(/<script type="application\/ld\+json">[\s\S]*?<\/script>/g, '')
        .replace(/<script type="application\/json" id="(app-config|site-page)">[\s\S]*?<\/script>/g, '')
        .replace(/ (content|href)="[^"]*"/g, '')
        .replace(/<title>[^<]*<\/title>/, '');
      expect(rest, payload.id).not.toContain(XSS_MARKER);
      expect(html.match(/<script\b/g), payload.id).toHaveLength(3);
    }
  });

  it('serves the card as a 1200x630 PNG under 300 KB with a long immutable cache and an ETag, and answers 304 to it', async () => {
    const article = (await create({ ...valid, title: 'Cards for link previews' })).json();
    const imageUrl = metaOf(await page(article.slug)).get('og:image')![0]!;
    const path = imageUrl.slice(ORIGIN.length);
    const res = await t.request({ url: path });
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toBe('image/png');
    expect(res.headers['cache-control']).toBe('public, max-age=31536000, immutable');
    const hash = /([0-9a-f]{16})\.png$/.exec(path)![1];
    expect(res.headers.etag).toBe(`"${hash}"`);
    const png = res.rawPayload;
    expect(pngSize(png)).toEqual({ width: 1200, height: 630 });
    expect(png.length).toBeLessThan(300 * 1024);
    expect(Number(res.headers['content-length'])).toBe(png.length);
    const again = await t.request({ url: path, headers: { 'if-none-match': `"${hash}"` } });
    expect(again.statusCode).toBe(304);
    expect(again.rawPayload.length).toBe(0);
    expect((await t.request({ url: path })).rawPayload.equals(png)).toBe(true);
  });

  it("draws no card for an unknown or unpublished article, a stale hash or a malformed name: 404; an edit changes the card's URL", async () => {
    const article = (await create({ ...valid, title: 'Cards change with titles' })).json();
    const oldPath = metaOf(await page(article.slug)).get('og:image')![0]!.slice(ORIGIN.length);
    expect((await t.request({ url: oldPath })).statusCode).toBe(200);
    await patch(article.id, { title: 'Cards change with their titles' });
    const newPath = metaOf(await page(article.slug)).get('og:image')![0]!.slice(ORIGIN.length);
    expect(newPath).not.toBe(oldPath);
    expect((await t.request({ url: newPath })).statusCode).toBe(200);
    // An edit that changes nothing the card shows keeps its URL.
    await patch(article.id, { excerpt: 'A different excerpt for the same card.' });
    expect(metaOf(await page(article.slug)).get('og:image')![0]!.slice(ORIGIN.length)).toBe(newPath);

    const hash = /([0-9a-f]{16})\.png$/.exec(newPath)![1]!;
    const draft = (await create({ ...valid, title: 'Cards change with their titles', published: false })).json();
    for (const url of [oldPath, `/og/no-such-article/${hash}.png`, `/og/${draft.slug}/${hash}.png`, `/og/${article.slug}/${hash}.jpg`, `/og/${article.slug}/${'0'.repeat(16)}.png`, `/og/${article.slug}/x.png`]) {
      const res = await t.request({ url });
      expect(res.statusCode, url).toBe(404);
      expect(res.headers['cache-control'] ?? '', url).not.toContain('immutable');
    }
    await patch(article.id, { published: false });
    expect((await t.request({ url: newPath })).statusCode).toBe(404);
  });

  it('gives RSS items their updated time and the sitemap the newest edit', async () => {
    const article = (await create({ ...valid, title: 'An article edited later' })).json();
    await create({ ...valid, title: 'A newer article' });
    const edited = (await patch(article.id, { excerpt: 'Edited after a newer one was published.' })).json();
    const rss = (await t.request({ url: '/rss.xml' })).body;
    const item = new RegExp(`<item>\\s*<title>An article edited later</title>[\\s\\S]*?</item>`).exec(rss)![0];
    expect(item).toContain(`<atom:updated>${edited.updatedAt}</atom:updated>`);
    expect(item).toContain(`<pubDate>${new Date(article.createdAt).toUTCString()}</pubDate>`);
    expect(rss).toContain('xmlns:atom="http://www.w3.org/2005/Atom"');
    expect(rss).toContain(`<lastBuildDate>${new Date(edited.updatedAt).toUTCString()}</lastBuildDate>`);
    const sitemap = (await t.request({ url: '/sitemap.xml' })).body;
    expect(sitemap).toContain(`<url><loc>${ORIGIN}/insights/${article.slug}</loc><lastmod>${edited.updatedAt}</lastmod></url>`);
    expect(sitemap).toContain(`<url><loc>${ORIGIN}/</loc><lastmod>${edited.updatedAt}</lastmod></url>`);
  });
});
