import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { shortPayloads, XSS_MARKER } from '../../../tests/e2e/support/xss-corpus.ts';
import { users } from '../../db/schema.ts';
import { siteBuildDir } from '../../test/site-build.ts';
import { createTestApp, type TestApp } from '../../test/test-app.ts';

const ORIGIN = 'http://localhost:3000';
const valid = {
  title: 'Automating invoices end to end',
  category: 'Automation',
  excerpt: 'How one finance team stopped retyping invoices.',
  content: `# Invoices\n\n${'A paragraph about automation. '.repeat(3)}`,
  published: true,
};

function unescapeHtml(text: string): string {
  return text.replace(/&(#\d+|#x[0-9a-f]+|quot|amp|lt|gt|apos);/gi, (entity, code: string) => {
    if (code.startsWith('#x') || code.startsWith('#X')) return String.fromCodePoint(parseInt(code.slice(2), 16));
    if (code.startsWith('#')) return String.fromCodePoint(Number(code.slice(1)));
    return ({ quot: '"', amp: '&', lt: '<', gt: '>', apos: "'" } as Record<string, string>)[code.toLowerCase()] ?? entity;
  });
}

function metaOf(html: string): Map<string, string[]> {
  const tags = new Map<string, string[]>();
  for (const [, key, value] of html.matchAll(/<meta (?:property|name)="([^"]+)" content="([^"]*)" \/>/g)) {
    tags.set(key!, [...(tags.get(key!) ?? []), unescapeHtml(value!)]);
  }
  return tags;
}

const jsonLdOf = (html: string) => [...html.matchAll(/<script type="application\/ld\+json">([\s\S]*?)<\/script>/g)].map(([, json]) => JSON.parse(json!) as Record<string, unknown>);

/** The RSS elements our feeds write: any other tag in a feed is markup that got through. */
const RSS_ELEMENTS = new Set(['rss', 'channel', 'title', 'link', 'atom:link', 'description', 'language', 'lastBuildDate', 'item', 'guid', 'pubDate', 'atom:updated', 'category']);

/** RSS 2.0 as readers need it: one channel with its title, link and description, each item
 * with title, link, guid and an RFC 822 pubDate; no element but RSS's own (nothing injected). */
function checkRss(xml: string): Array<{ title: string; link: string; categories: string[] }> {
  expect(xml.startsWith('<?xml version="1.0" encoding="UTF-8"?>\n<rss version="2.0" xmlns:atom="http://www.w3.org/2005/Atom">')).toBe(true);
  for (const [, name] of xml.matchAll(/<\/?([A-Za-z:]+)[\s>/]/g)) expect(RSS_ELEMENTS.has(name!), `unexpected <${name}>`).toBe(true);
  const channel = /<channel>([\s\S]*)<\/channel>/.exec(xml)![1]!;
  expect(channel).toMatch(/^\s*<title>[^<]+<\/title>\s*<link>[^<]+<\/link>\s*<atom:link href="[^"]+" rel="self" type="application\/rss\+xml" \/>\s*<description>[^<]+<\/description>/);
  return [...channel.matchAll(/<item>([\s\S]*?)<\/item>/g)].map(([, item]) => {
    expect(item).toMatch(/<guid isPermaLink="true">[^<]+<\/guid>/);
    const pubDate = /<pubDate>([^<]+)<\/pubDate>/.exec(item!)![1]!;
    expect(new Date(pubDate).toUTCString()).toBe(pubDate);
    return {
      title: unescapeHtml(/<title>([^<]*)<\/title>/.exec(item!)![1]!),
      link: /<link>([^<]*)<\/link>/.exec(item!)![1]!,
      categories: [...item!.matchAll(/<category>([^<]*)<\/category>/g)].map(([, c]) => unescapeHtml(c!)),
    };
  });
}

describe('tags and authors (issue 34 item 4)', () => {
  let t: TestApp;
  let admin: string;
  let editor: string;
  beforeAll(async () => {
    t = await createTestApp({ clientDir: siteBuildDir(), env: { ADMIN_EMAILS: 'admin@example.com,editor@example.com', SITE_NAME: 'Acme' } });
    admin = await t.signIn('admin@example.com', 'Ada Lovelace');
    editor = await t.signIn('editor@example.com', 'Gone Editor');
  });
  afterAll(async () => t.close());

  let n = 0;
  const create = (body: object, cookie = admin) => t.request({ method: 'POST', url: '/api/articles', payload: { ...valid, title: `${valid.title} ${++n}`, ...body }, cookie });
  const patch = (id: string, body: object) => t.request({ method: 'PATCH', url: `/api/articles/${id}`, payload: body, cookie: admin });
  const publicArticle = async (slug: string) => (await t.request({ url: `/api/articles/${slug}` })).json();

  it('keeps the category as the primary tag, adds the further ones in order, merges duplicates in any case, and refuses bad tags with the field and rule', async () => {
    const res = await create({ category: 'Finance Ops', tags: ['AI', 'ai', ' Data ', 'finance ops', 'Café'] });
    expect(res.statusCode).toBe(201);
    expect(res.json().tags).toEqual([
      { name: 'Finance Ops', slug: 'finance-ops' },
      { name: 'AI', slug: 'ai' },
      { name: 'Data', slug: 'data' },
      { name: 'Café', slug: 'cafe' },
    ]);
    // Without `tags`, the category alone (SPEC's request works as before).
    const { tags: _none, ...spec } = { ...valid, tags: undefined };
    expect((await create(spec)).json().tags).toEqual([{ name: 'Automation', slug: 'automation' }]);

    const refused = async (body: object) => {
      const r = await create(body);
      expect(r.statusCode).toBe(400);
      return r.json().details as Array<{ path: string; message: string }>;
    };
    expect(await refused({ tags: ['A'] })).toEqual([{ path: 'tags.0', message: 'Each tag must be at least 2 characters' }]);
    expect(await refused({ tags: ['ok', 'x'.repeat(51)] })).toEqual([{ path: 'tags.1', message: 'Each tag must be at most 50 characters' }]);
    expect(await refused({ tags: 'AI' })).toMatchObject([{ path: 'tags' }]);
    const eleven = Array.from({ length: 10 }, (_, i) => `Tag ${i}`);
    expect(await refused({ tags: eleven })).toEqual([{ path: 'tags', message: 'At most 10 tags in all, the category included' }]);
    // Ten in all is fine: the category and nine more.
    expect((await create({ tags: eleven.slice(0, 9) })).json().tags).toHaveLength(10);
  });

  it('changes the primary tag with the category and keeps the further tags, or changes them alone; the admin reads them back', async () => {
    const article = (await create({ category: 'Ops', tags: ['Cloud', 'Costs'] })).json();
    expect((await patch(article.id, { category: 'Platform' })).json().tags.map((tag: { name: string }) => tag.name)).toEqual(['Platform', 'Cloud', 'Costs']);
    expect((await patch(article.id, { tags: ['Costs'] })).json().tags.map((tag: { name: string }) => tag.name)).toEqual(['Platform', 'Costs']);
    const admins = (await t.request({ url: `/api/admin/articles/${article.id}`, cookie: admin })).json();
    expect(admins.tags).toEqual([
      { name: 'Platform', slug: 'platform' },
      { name: 'Costs', slug: 'costs' },
    ]);
    const listed = (await t.request({ url: '/api/admin/articles', cookie: admin })).json().find((a: { id: string }) => a.id === article.id);
    expect(listed.tags).toEqual(admins.tags);
  });

  it('keeps the tags in revisions, and a restore puts them back', async () => {
    const article = (await create({ category: 'Revisions', tags: ['First', 'Second'] })).json();
    await patch(article.id, { tags: ['Third'] });
    const { revisions } = (await t.request({ url: `/api/admin/articles/${article.id}/revisions`, cookie: admin })).json();
    expect(revisions).toHaveLength(2);
    const first = (await t.request({ url: `/api/admin/articles/${article.id}/revisions/${revisions[1].id}`, cookie: admin })).json();
    expect(first.fields.tags).toEqual(['First', 'Second']);
    const restored = (await t.request({ method: 'POST', url: `/api/articles/${article.id}/revisions/${revisions[1].id}/restore`, payload: {}, cookie: admin })).json();
    expect(restored.tags.map((tag: { name: string }) => tag.name)).toEqual(['Revisions', 'First', 'Second']);
  });

  it("lists a tag's published articles newest first on its API, page and RSS, never a draft or scheduled one, and answers 404 for an unknown tag or one on drafts only", async () => {
    const older = (await create({ category: 'Logistics', title: 'Routing trucks', tags: ['Maps'] })).json();
    const newer = (await create({ category: 'Supply', title: 'Stock levels', tags: ['logistics'] })).json();
    await create({ category: 'Logistics', title: 'Secret logistics draft', published: false });
    await create({ category: 'Drafts only', title: 'Only a draft', published: false, tags: ['Hidden tag'] });
    await create({ category: 'Logistics', title: 'Scheduled logistics', published: false, publishAt: new Date(Date.now() + 86_400_000).toISOString() });

    const api = await t.request({ url: '/api/articles/tag/logistics' });
    expect(api.statusCode).toBe(200);
    expect(api.headers['cache-control']).toBe('no-cache');
    const body = api.json();
    expect(body.tag).toEqual({ name: 'Logistics', slug: 'logistics' });
    expect(body.items.map((a: { slug: string }) => a.slug)).toEqual([newer.slug, older.slug]);
    expect(body.total).toBe(2);
    expect(Object.keys(body.items[0]).sort()).toEqual(['category', 'cover', 'createdAt', 'excerpt', 'id', 'publishedAt', 'readTime', 'slug', 'title']);
    expect((await t.request({ url: '/api/articles/tag/logistics?limit=1&offset=1' })).json().items.map((a: { slug: string }) => a.slug)).toEqual([older.slug]);

    const page = await t.request({ url: '/insights/tag/logistics' });
    expect(page.statusCode).toBe(200);
    expect(page.body).toContain('<title>Articles tagged Logistics · Acme</title>');
    expect(page.body).toContain(`<link rel="canonical" href="${ORIGIN}/insights/tag/logistics" />`);
    expect(page.body).toContain(`<link rel="alternate" type="application/rss+xml" title="Acme Insights: Logistics" href="${ORIGIN}/insights/tag/logistics/rss.xml" />`);
    expect(metaOf(page.body).get('description')).toEqual(['Articles on Logistics from Acme.']);
    const site = JSON.parse(/<script type="application\/json" id="site-page">([\s\S]*?)<\/script>/.exec(page.body)![1]!);
    expect(site).toMatchObject({ kind: 'tag', tag: { slug: 'logistics' }, page: 1, list: { total: 2 } });
    expect(site.list.items.map((a: { slug: string }) => a.slug)).toEqual([newer.slug, older.slug]);

    const feed = await t.request({ url: '/insights/tag/logistics/rss.xml' });
    expect(feed.statusCode).toBe(200);
    expect(feed.headers['content-type']).toBe('application/rss+xml; charset=utf-8');
    expect(feed.body).toContain('<title>Acme Insights: Logistics</title>');
    expect(feed.body).toContain(`<atom:link href="${ORIGIN}/insights/tag/logistics/rss.xml" rel="self" type="application/rss+xml" />`);
    expect(checkRss(feed.body).map((item) => item.title)).toEqual(['Stock levels', 'Routing trucks']);

    for (const slug of ['no-such-tag', 'hidden-tag']) {
      expect((await t.request({ url: `/api/articles/tag/${slug}` })).statusCode, slug).toBe(404);
      expect((await t.request({ url: `/insights/tag/${slug}` })).statusCode, slug).toBe(404);
      expect((await t.request({ url: `/insights/tag/${slug}/rss.xml` })).statusCode, slug).toBe(404);
    }
    // The sitemap has each tag's page, never a tag only drafts have.
    const sitemap = (await t.request({ url: '/sitemap.xml' })).body;
    expect(sitemap).toContain(`<loc>${ORIGIN}/insights/tag/logistics</loc>`);
    expect(sitemap).toContain(`<loc>${ORIGIN}/insights/tag/maps</loc>`);
    expect(sitemap).not.toContain('hidden-tag');
  });

  it('writes every tag as article:tag and the JSON-LD keywords, and the page links its tags', async () => {
    const article = (await create({ category: 'Security', tags: ['Passkeys', 'Identity'] })).json();
    const html = (await t.request({ url: `/insights/${article.slug}` })).body;
    expect(metaOf(html).get('article:tag')).toEqual(['Security', 'Passkeys', 'Identity']);
    expect(metaOf(html).get('article:section')).toEqual(['Security']);
    expect(jsonLdOf(html)[0]!.keywords).toBe('Security, Passkeys, Identity');
    expect((await publicArticle(article.slug)).tags).toEqual([
      { name: 'Security', slug: 'security' },
      { name: 'Passkeys', slug: 'passkeys' },
      { name: 'Identity', slug: 'identity' },
    ]);
  });

  it('shows up to 3 related articles sharing the most tags (ties: newest), never itself or a draft, and follows publishing elsewhere', async () => {
    const base = (await create({ category: 'Rel base', tags: ['Rel A', 'Rel B', 'Rel C'] })).json();
    const two = (await create({ category: 'Rel A', title: 'Shares two', tags: ['Rel B'] })).json();
    const oneOld = (await create({ category: 'Rel C', title: 'Shares one, older' })).json();
    const three = (await create({ category: 'Rel A', title: 'Shares three', tags: ['Rel B', 'Rel C'] })).json();
    const oneNew = (await create({ category: 'Rel C', title: 'Shares one, newer' })).json();
    const draft = (await create({ category: 'Rel A', title: 'Related draft', tags: ['Rel B', 'Rel C', 'Rel base'], published: false })).json();
    await create({ category: 'Unrelated', title: 'Shares none' });

    const related = async () => ((await publicArticle(base.slug)).related as Array<{ slug: string }>).map((a) => a.slug);
    expect(await related()).toEqual([three.slug, two.slug, oneNew.slug]);
    expect((await publicArticle(base.slug)).related[0]).toEqual({ slug: three.slug, title: 'Shares three', excerpt: valid.excerpt, category: 'Rel A', publishedAt: three.publishedAt });
    // Publishing the draft (it shares all four) puts it first; unpublishing takes it out again.
    await patch(draft.id, { published: true });
    expect(await related()).toEqual([draft.slug, three.slug, two.slug]);
    await patch(draft.id, { published: false });
    expect(await related()).toEqual([three.slug, two.slug, oneNew.slug]);
    expect(await related()).not.toContain(oneOld.slug);
    // None shared: no related articles.
    const alone = (await create({ category: 'Lonely tag' })).json();
    expect((await publicArticle(alone.slug)).related).toEqual([]);
  });

  it("shows the author's name and photo (https only), and Unknown author once the account is gone; the JSON-LD names them", async () => {
    await t.database.db.update(users).set({ profilePicture: 'https://lh3.googleusercontent.com/a/photo=s96-c' }).where(eq(users.email, 'admin@example.com'));
    const withPhoto = (await create({ category: 'Authors' })).json();
    expect((await publicArticle(withPhoto.slug)).author).toEqual({ name: 'Ada Lovelace', picture: 'https://lh3.googleusercontent.com/a/photo=s96-c' });
    expect(jsonLdOf((await t.request({ url: `/insights/${withPhoto.slug}` })).body)[0]!.author).toEqual({ '@type': 'Person', name: 'Ada Lovelace' });

    // A new name at the author's next sign-in shows at once (the user's invalidation drops the page).
    await t.signIn('admin@example.com', 'Ada King');
    expect((await publicArticle(withPhoto.slug)).author.name).toBe('Ada King');

    await t.database.db.update(users).set({ profilePicture: 'http://insecure.example/photo.png' }).where(eq(users.email, 'editor@example.com'));
    const byEditor = (await create({ category: 'Authors' }, editor)).json();
    expect((await publicArticle(byEditor.slug)).author).toEqual({ name: 'Gone Editor', picture: null });
    // The public read never carries the author's id.
    expect(await publicArticle(byEditor.slug)).not.toHaveProperty('authorId');

    await t.database.db.delete(users).where(eq(users.email, 'editor@example.com'));
    // Rows changed behind the service's back: an edit announces the change to its cache.
    await patch(byEditor.id, { excerpt: 'Written by someone who left.' });
    expect((await publicArticle(byEditor.slug)).author).toBeNull();
    expect(jsonLdOf((await t.request({ url: `/insights/${byEditor.slug}` })).body)[0]!.author).toMatchObject({ '@type': 'Organization', name: 'Acme' });
  });

  it('keeps the XSS corpus inert through tag names on the article page, the tag page, its feed and the sitemap', async () => {
    for (const payload of Object.values(shortPayloads('tag'))) {
      const name = payload.text.slice(0, 50);
      const created = await create({ category: `Cat ${payload.id}`.slice(0, 50), tags: [name] });
      expect(created.statusCode, payload.id).toBe(201);
      const article = created.json();
      const tag = article.tags[1] as { name: string; slug: string };
      expect(tag.name, payload.id).toBe(name.trim());
      expect(tag.slug, payload.id).toMatch(/^[a-z0-9-]+$/);

      const html = (await t.request({ url: `/insights/${article.slug}` })).body;
      expect(metaOf(html).get('article:tag'), payload.id).toContain(tag.name);
      expect(jsonLdOf(html)[0]!.keywords, payload.id).toContain(tag.name);
      const tagHtml = await t.request({ url: `/insights/tag/${tag.slug}` });
      expect(tagHtml.statusCode, payload.id).toBe(200);
      for (const page of [html, tagHtml.body]) {
        // Without the attribute values, the title and the JSON data, nothing of the payload is left.
        const rest = page
          .replace(/<script type="application\/ld\+json">[\s\S]*?<\/script>/g, '')
          .replace(/<script type="application\/json" id="(app-config|site-page)">[\s\S]*?<\/script>/g, '')
          .replace(/ (content|href|title)="[^"]*"/g, '')
          .replace(/<title>[^<]*<\/title>/, '');
        expect(rest, payload.id).not.toContain(XSS_MARKER);
        expect(page.match(/<script\b/g)!.length, payload.id).toBeLessThanOrEqual(3);
      }
      const feed = (await t.request({ url: `/insights/tag/${tag.slug}/rss.xml` })).body;
      expect(feed, payload.id).toContain(`<title>Acme Insights: ${tag.name.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&apos;' })[c]!)}</title>`);
      checkRss(feed);
    }
    checkRss((await t.request({ url: '/rss.xml' })).body);
    expect((await t.request({ url: '/sitemap.xml' })).body).not.toMatch(/<(script|img|svg)/);
  });
});
