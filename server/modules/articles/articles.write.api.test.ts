import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { siteBuildDir } from '../../test/site-build.ts';
import { createTestApp, type TestApp } from '../../test/test-app.ts';

const valid = {
  title: 'Automating invoices end to end',
  category: 'Automation',
  readTime: '6 min read',
  excerpt: 'How one finance team stopped retyping invoices.',
  content: `# Invoices\n\n${'A paragraph about automation. '.repeat(3)}`,
  published: false,
};

describe('article authoring', () => {
  let t: TestApp;
  let admin: string;
  let otherAdmin: string;
  let guest: string;
  beforeAll(async () => {
    t = await createTestApp({ clientDir: siteBuildDir(), env: { ADMIN_EMAILS: 'admin@example.com,editor@example.com', SITE_NAME: 'Acme' } });
    admin = await t.signIn('admin@example.com', 'Admin');
    otherAdmin = await t.signIn('editor@example.com', 'Editor');
    guest = await t.signIn('guest@example.com', 'Guest');
  });
  afterAll(async () => t.close());

  const create = (body: object, cookie = admin) => t.request({ method: 'POST', url: '/api/articles', payload: body, cookie });
  const count = async () =>
    ((await t.database.db.execute('select count(*)::int as n from articles')) as unknown as { rows: Array<{ n: number }> }).rows[0]!.n;

  it('permission matrix: signed out 401, guest 403, any admin allowed, on every article route', async () => {
    const draft = (await create({ ...valid, title: 'Matrix draft' })).json();
    const routes: Array<{ method: 'GET' | 'POST' | 'PATCH' | 'DELETE'; url: string; payload?: object; publicStatus?: number }> = [
      { method: 'POST', url: '/api/articles', payload: valid },
      { method: 'PATCH', url: `/api/articles/${draft.id}`, payload: { category: 'Ops' } },
      { method: 'GET', url: '/api/admin/articles' },
      { method: 'GET', url: `/api/admin/articles/${draft.id}` },
      { method: 'DELETE', url: `/api/articles/${draft.id}` },
    ];
    for (const route of routes) {
      const anonymous = await t.request({ method: route.method, url: route.url, payload: route.payload });
      expect(anonymous.statusCode, `${route.method} ${route.url} signed out`).toBe(401);
      const asGuest = await t.request({ method: route.method, url: route.url, payload: route.payload, cookie: guest });
      expect(asGuest.statusCode, `${route.method} ${route.url} guest`).toBe(403);
    }
    expect(await count()).toBeGreaterThan(0);
    for (const [i, route] of routes.entries()) {
      const res = await t.request({ method: route.method, url: route.url, payload: route.payload, cookie: i % 2 ? admin : otherAdmin });
      expect(res.statusCode, `${route.method} ${route.url} admin`).toBe(route.method === 'POST' ? 201 : route.method === 'DELETE' ? 204 : 200);
    }
  });

  it('creates a draft by default, with the author from the session and a slug from the title', async () => {
    const { published: _p, readTime: _r, ...minimal } = valid;
    const res = await create({ ...minimal, title: 'Café automation: déjà vu!', authorId: 'someone-else' });
    expect(res.statusCode).toBe(201);
    const article = res.json();
    expect(article).toMatchObject({ slug: 'cafe-automation-deja-vu', published: false, readTime: '5 min read', title: 'Café automation: déjà vu!' });
    const me = (await t.request({ url: '/api/auth/me', cookie: admin })).json().user;
    expect(article.authorId).toBe(me.id);
    const again = (await create({ ...minimal, title: 'Café automation: déjà vu!' })).json();
    expect(again.slug).toBe('cafe-automation-deja-vu-2');
  });

  it.each([
    ['title', 'x'.repeat(4), 'Title must be at least 5 characters'],
    ['title', 'x'.repeat(201), 'Title must be at most 200 characters'],
    ['excerpt', 'x'.repeat(9), 'Excerpt must be at least 10 characters'],
    ['excerpt', 'x'.repeat(501), 'Excerpt must be at most 500 characters'],
    ['content', 'x'.repeat(49), 'Content must be at least 50 characters'],
    ['category', '', 'Category is required'],
    ['category', 'x', 'Category must be at least 2 characters'],
    ['category', 'x'.repeat(51), 'Category must be at most 50 characters'],
    ['published', 'yes', 'Invalid input: expected boolean, received string'],
  ])('refuses %s of %j characters with 400 and its message (SPEC\'s, stating the limit: decision 0065), writing nothing', async (field, value, message) => {
    const before = await count();
    const res = await create({ ...valid, [field]: value });
    expect(res.statusCode).toBe(400);
    expect(res.json()).toEqual({ error: 'Invalid request', details: [{ path: field, message }] });
    expect(await count()).toBe(before);
  });

  it.each([
    ['title', 'x'.repeat(5)],
    ['title', 'x'.repeat(200)],
    ['excerpt', 'x'.repeat(10)],
    ['excerpt', 'x'.repeat(500)],
    ['content', 'x'.repeat(50)],
    ['category', 'xx'],
    ['category', 'x'.repeat(50)],
  ])('accepts %s at the boundary (%j characters)', async (field, value) => {
    expect((await create({ ...valid, [field]: value })).statusCode).toBe(201);
  });

  it('updates with the same rules, keeps the slug, and 404s an unknown id', async () => {
    const article = (await create({ ...valid, title: 'Original title here' })).json();
    const bad = await t.request({ method: 'PATCH', url: `/api/articles/${article.id}`, payload: { title: 'abc' }, cookie: admin });
    expect(bad.statusCode).toBe(400);
    expect(bad.json().details).toEqual([{ path: 'title', message: 'Title must be at least 5 characters' }]);
    const empty = await t.request({ method: 'PATCH', url: `/api/articles/${article.id}`, payload: {}, cookie: admin });
    expect(empty.statusCode).toBe(400);
    // A partial edit leaves every other field alone (no defaults sneak in).
    await t.request({ method: 'PATCH', url: `/api/articles/${article.id}`, payload: { published: true, readTime: '9 min read' }, cookie: admin });
    const edited = await t.request({ method: 'PATCH', url: `/api/articles/${article.id}`, payload: { category: 'Ops' }, cookie: admin });
    expect(edited.json()).toMatchObject({ category: 'Ops', published: true, readTime: '9 min read' });
    const extra = await t.request({ method: 'PATCH', url: `/api/articles/${article.id}`, payload: { slug: 'hijack' }, cookie: admin });
    expect(extra.statusCode).toBe(400);
    const ok = await t.request({ method: 'PATCH', url: `/api/articles/${article.id}`, payload: { title: 'A better title', published: true }, cookie: admin });
    expect(ok.statusCode).toBe(200);
    expect(ok.json()).toMatchObject({ title: 'A better title', slug: 'original-title-here', published: true });
    const missing = '00000000-0000-4000-8000-000000000000';
    expect((await t.request({ method: 'PATCH', url: `/api/articles/${missing}`, payload: { published: true }, cookie: admin })).statusCode).toBe(404);
    expect((await t.request({ method: 'DELETE', url: `/api/articles/${missing}`, cookie: admin })).statusCode).toBe(404);
    expect((await t.request({ method: 'DELETE', url: '/api/articles/not-a-uuid', cookie: admin })).statusCode).toBe(400);
  });

  it('never shows a draft publicly: list, page, HTML, sitemap and RSS; publishing shows it at once everywhere', async () => {
    const draft = (await create({ ...valid, title: 'Secret roadmap draft' })).json();
    const visible = async () => {
      const list = (await t.request({ url: '/api/articles' })).body;
      const page = await t.request({ url: `/api/articles/${draft.slug}` });
      const html = await t.request({ url: `/insights/${draft.slug}` });
      const sitemap = (await t.request({ url: '/sitemap.xml' })).body;
      const rss = (await t.request({ url: '/rss.xml' })).body;
      return {
        list: list.includes('Secret roadmap draft'),
        page: page.statusCode,
        html: html.statusCode,
        htmlHasTitle: html.body.includes('Secret roadmap draft'),
        sitemap: sitemap.includes(draft.slug),
        rss: rss.includes('Secret roadmap draft'),
        guestPage: (await t.request({ url: `/api/articles/${draft.slug}`, cookie: guest })).statusCode,
      };
    };
    expect(await visible()).toEqual({ list: false, page: 404, html: 404, htmlHasTitle: false, sitemap: false, rss: false, guestPage: 404 });
    // An admin may preview the draft.
    expect((await t.request({ url: `/api/articles/${draft.slug}`, cookie: admin })).json().title).toBe('Secret roadmap draft');

    await t.request({ method: 'PATCH', url: `/api/articles/${draft.id}`, payload: { published: true }, cookie: admin });
    expect(await visible()).toEqual({ list: true, page: 200, html: 200, htmlHasTitle: true, sitemap: true, rss: true, guestPage: 200 });

    await t.request({ method: 'DELETE', url: `/api/articles/${draft.id}`, cookie: admin });
    expect(await visible()).toMatchObject({ list: false, page: 404, html: 404, sitemap: false, rss: false });
  });

  it('stores HTML and script payloads verbatim and escapes them in the HTML, sitemap and RSS', async () => {
    const hostile = {
      ...valid,
      title: '<script>alert("t")</script> & <img src=x onerror=alert(1)>',
      excerpt: '"><svg onload=alert(1)> excerpt',
      category: '<b>cat</b>',
      content: `<script>alert('c')</script>\n\n[x](javascript:alert(1)) ${'text '.repeat(10)}`,
      published: true,
    };
    const article = (await create(hostile)).json();
    const stored = (await t.request({ url: `/api/articles/${article.slug}` })).json();
    expect(stored).toMatchObject({ title: hostile.title, excerpt: hostile.excerpt, content: hostile.content, category: hostile.category });

    const html = (await t.request({ url: `/insights/${article.slug}` })).body;
    expect(html).not.toContain('<script>alert');
    expect(html).not.toContain('<svg onload');
    expect(html).not.toContain('<img src=x');
    expect(html).toContain('&#60;script&#62;alert(&#34;t&#34;)&#60;/script&#62;');
    for (const xml of [(await t.request({ url: '/rss.xml' })).body, (await t.request({ url: '/sitemap.xml' })).body]) {
      expect(xml).not.toContain('<script>');
      expect(xml).not.toContain('<svg');
    }
  });

  it('answers article pages with Open Graph and description tags in the HTML itself', async () => {
    const article = (await create({ ...valid, title: 'Forecasting demand with ML', excerpt: 'Better stock levels from your own sales data.', published: true })).json();
    const res = await t.request({ url: `/insights/${article.slug}` });
    expect(res.statusCode).toBe(200);
    const html = res.body;
    expect(html).toContain('<title>Forecasting demand with ML · Acme</title>');
    expect(html).toContain('<meta name="description" content="Better stock levels from your own sales data." />');
    expect(html).toContain('<meta property="og:title" content="Forecasting demand with ML · Acme" />');
    expect(html).toContain('<meta property="og:type" content="article" />');
    expect(html).toContain(`<meta property="og:url" content="http://localhost:3000/insights/${article.slug}" />`);
    expect(html).toContain(`<link rel="canonical" href="http://localhost:3000/insights/${article.slug}" />`);
    expect(html.match(/<meta name="description"/g)).toHaveLength(1);
    expect(html).toContain('id="app-config"');
    // Other pages keep the site's own title and description.
    const home = (await t.request({ url: '/' })).body;
    expect(home).toContain('<title>Acme · Intelligent business automation</title>');
    expect(home).toContain('content="Site description"');
    const unknown = await t.request({ url: '/insights/no-such-article' });
    expect(unknown.statusCode).toBe(404);
    expect(unknown.headers['content-type']).toMatch(/^text\/html/);
    expect(unknown.body).toContain('<title>Article not found · Acme</title>');
  });

  it("public reads carry only what the pages show: no author id in the list, the page, its HTML, /insights' data, the sitemap or RSS", async () => {
    const authorId = (await t.request({ url: '/api/auth/me', cookie: admin })).json().user.id as string;
    const article = (await create({ ...valid, title: 'Who wrote this one', published: true })).json();
    expect(article.authorId).toBe(authorId); // the admin's own read keeps it

    // The cover (docs/decisions/0099): its image id, size and alt text, never who uploaded it.
    const pageFields = ['id', 'slug', 'title', 'category', 'excerpt', 'createdAt', 'publishedAt', 'readTime', 'cover'];
    const list = (await t.request({ url: '/api/articles' })).json() as object[];
    for (const item of list) expect(Object.keys(item).sort()).toEqual([...pageFields].sort());
    for (const cookie of [undefined, guest]) {
      const page = await t.request({ url: `/api/articles/${article.slug}`, ...(cookie ? { cookie } : {}) });
      // The page also carries its meta title and description: the app's document title and description;
      // and its tags, its author's name and photo (no id) and related articles (decision 0100).
      expect(Object.keys(page.json()).sort()).toEqual([...pageFields, 'content', 'metaTitle', 'metaDescription', 'tags', 'author', 'related'].sort());
      expect(Object.keys(page.json().author).sort()).toEqual(['name', 'picture']);
    }
    const insights = (await t.request({ url: '/insights' })).body;
    const siteData = JSON.parse(/<script type="application\/json" id="site-page">(.*?)<\/script>/.exec(insights)![1]!);
    expect(siteData.list.items.length).toBeGreaterThan(0);
    for (const item of siteData.list.items) expect(Object.keys(item).sort()).toEqual([...pageFields].sort());
    for (const url of ['/api/articles', `/api/articles/${article.slug}`, `/insights/${article.slug}`, '/insights', '/sitemap.xml', '/rss.xml']) {
      const body = (await t.request({ url })).body;
      expect(body, url).toContain(article.slug);
      expect(body, url).not.toContain(authorId);
      expect(body, url).not.toMatch(/authorId|author_id/);
    }
  });

  it('serves robots.txt, a sitemap and an RSS feed of published articles', async () => {
    const robots = await t.request({ url: '/robots.txt' });
    expect(robots.headers['content-type']).toMatch(/^text\/plain/);
    expect(robots.body).toContain('Sitemap: http://localhost:3000/sitemap.xml');
    expect(robots.body).toContain('Disallow: /api/');
    const sitemap = await t.request({ url: '/sitemap.xml' });
    expect(sitemap.headers['content-type']).toMatch(/^application\/xml/);
    expect(sitemap.body).toContain('<loc>http://localhost:3000/insights</loc>');
    const rss = await t.request({ url: '/rss.xml' });
    expect(rss.headers['content-type']).toMatch(/^application\/rss\+xml/);
    expect(rss.body).toContain('<title>Forecasting demand with ML</title>');
    expect(rss.body).toMatch(/<pubDate>\w{3}, \d{2} \w{3} \d{4}/);
  });

  it('lists pages of published articles with the total in x-total-count', async () => {
    await create({ ...valid, title: 'Third published piece', published: true });
    const res = await t.request({ url: '/api/articles?limit=2&offset=1' });
    expect(res.statusCode).toBe(200);
    const total = Number(res.headers['x-total-count']);
    expect(total).toBeGreaterThanOrEqual(3);
    const all = (await t.request({ url: '/api/articles' })).json();
    expect(all).toHaveLength(total);
    expect(res.json()).toEqual(all.slice(1, 3));
  });
});
