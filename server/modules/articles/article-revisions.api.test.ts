import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ARTICLE_REVISIONS_KEPT, type TArticle, type TArticleRevision, type TArticleRevisionList } from '../../../contracts/articles.ts';
import { createTestApp, type TestApp } from '../../test/test-app.ts';

// Issue 34 item 6, docs/decisions/0097: every save that changes an article's text keeps a
// revision (the newest 20), listed with its time and who saved it, readable whole to compare,
// and restorable (the restore is a save of its own). On PGlite and, with TEST_POSTGRES_URL,
// PostgreSQL.

const valid = {
  title: 'Revisions of an article',
  category: 'Automation',
  readTime: '4 min read',
  excerpt: 'An article saved several times.',
  content: `# First\n\n${'The first text of the article. '.repeat(3)}`,
  published: false,
};

describe('article revisions', () => {
  let t: TestApp;
  let admin: string;
  let editor: string;
  let guest: string;
  beforeAll(async () => {
    t = await createTestApp({ env: { ADMIN_EMAILS: 'admin@example.com,editor@example.com' } });
    admin = await t.signIn('admin@example.com', 'Ada Admin');
    editor = await t.signIn('editor@example.com', 'Eddie Editor');
    guest = await t.signIn('guest@example.com', 'Guest');
  });
  afterAll(async () => t.close());

  const create = async (body: object = valid) => {
    const res = await t.request({ method: 'POST', url: '/api/articles', payload: body, cookie: admin });
    expect(res.statusCode).toBe(201);
    return res.json() as TArticle;
  };
  const save = async (id: string, patch: object, cookie = admin) => {
    const res = await t.request({ method: 'PATCH', url: `/api/articles/${id}`, payload: patch, cookie });
    expect(res.statusCode, res.body).toBe(200);
    return res.json() as TArticle;
  };
  const list = async (id: string, cookie = admin) => (await t.request({ url: `/api/admin/articles/${id}/revisions`, cookie })).json() as TArticleRevisionList;
  const read = async (id: string, revisionId: string) => (await t.request({ url: `/api/admin/articles/${id}/revisions/${revisionId}`, cookie: admin })).json() as TArticleRevision;

  it('keeps the created text and each save that changed it, newest first, with who saved it; publishing alone keeps none', async () => {
    const article = await create();
    await save(article.id, { content: `# Second\n\n${'The second text of the article. '.repeat(3)}` }, editor);
    await save(article.id, { published: true });
    // The whole form sent again unchanged: no new revision either.
    await save(article.id, { title: valid.title, category: valid.category, readTime: valid.readTime, excerpt: valid.excerpt });
    await save(article.id, { title: 'Revisions of an article, retitled' });

    const { revisions } = await list(article.id);
    expect(revisions.map((r) => [r.number, r.author?.name])).toEqual([
      [3, 'Ada Admin'],
      [2, 'Eddie Editor'],
      [1, 'Ada Admin'],
    ]);
    expect(revisions.every((r) => !Number.isNaN(Date.parse(r.createdAt)))).toBe(true);
    const second = await read(article.id, revisions[1]!.id);
    const { published: _state, ...text } = valid;
    // The further tags and the cover too (decisions 0100, 0099): none here.
    expect(second.fields).toEqual({ ...text, content: `# Second\n\n${'The second text of the article. '.repeat(3)}`, tags: [], coverImageId: null, coverAlt: null });
    expect((await read(article.id, revisions[0]!.id)).fields.title).toBe('Revisions of an article, retitled');
  });

  it('restores a revision’s text, keeps the article published, and records the restore as a revision', async () => {
    const article = await create();
    await save(article.id, { content: `# Changed\n\n${'Text that will be taken back. '.repeat(3)}`, published: true });
    const [, first] = (await list(article.id)).revisions;
    const restored = await t.request({ method: 'POST', url: `/api/articles/${article.id}/revisions/${first!.id}/restore`, cookie: editor });
    expect(restored.statusCode).toBe(200);
    expect(restored.json()).toMatchObject({ content: valid.content, title: valid.title, published: true });
    // The public page shows the restored text at once.
    const page = await t.request({ url: `/api/articles/${article.slug}` });
    expect(page.json().content).toBe(valid.content);
    const after = (await list(article.id)).revisions;
    expect(after.map((r) => [r.number, r.author?.name])).toEqual([
      [3, 'Eddie Editor'],
      [2, 'Ada Admin'],
      [1, 'Ada Admin'],
    ]);
  });

  it(`keeps the newest ${ARTICLE_REVISIONS_KEPT} of an article`, async () => {
    const article = await create();
    for (let i = 2; i <= ARTICLE_REVISIONS_KEPT + 5; i++) await save(article.id, { excerpt: `Saved for the ${i}th time, at least.` });
    const { revisions } = await list(article.id);
    expect(revisions).toHaveLength(ARTICLE_REVISIONS_KEPT);
    expect(revisions[0]!.number).toBe(ARTICLE_REVISIONS_KEPT + 5);
    expect(revisions.at(-1)!.number).toBe(6);
  });

  it('admins only; another article’s revision, an unknown article and a bad id are refused and change nothing', async () => {
    const one = await create();
    const other = await create({ ...valid, title: 'Another article with revisions' });
    const [otherRevision] = (await list(other.id)).revisions;
    const url = `/api/admin/articles/${one.id}/revisions`;
    expect((await t.request({ url })).statusCode).toBe(401);
    expect((await t.request({ url, cookie: guest })).statusCode).toBe(403);
    const restoreUrl = `/api/articles/${one.id}/revisions/${otherRevision!.id}/restore`;
    expect((await t.request({ method: 'POST', url: restoreUrl, cookie: guest })).statusCode).toBe(403);
    const crossed = await t.request({ method: 'POST', url: restoreUrl, cookie: admin });
    expect(crossed.statusCode).toBe(404);
    expect(crossed.json().message).toBe('Revision not found');
    expect((await t.request({ url: `/api/admin/articles/${one.id}/revisions/${otherRevision!.id}`, cookie: admin })).statusCode).toBe(404);
    expect((await t.request({ url: '/api/admin/articles/00000000-0000-4000-8000-000000000000/revisions', cookie: admin })).statusCode).toBe(404);
    const bad = await t.request({ url: `/api/admin/articles/${one.id}/revisions/not-a-uuid`, cookie: admin });
    expect(bad.statusCode).toBe(400);
    expect(bad.json().details).toEqual([expect.objectContaining({ path: 'revisionId', message: 'Revision id must be a UUID' })]);
    expect((await list(one.id)).revisions).toHaveLength(1);
    expect((await t.request({ url: `/api/admin/articles/${one.id}`, cookie: admin })).json().title).toBe(valid.title);
  });

  it('deleting the article deletes its revisions', async () => {
    const article = await create();
    await save(article.id, { excerpt: 'A second save before the article goes.' });
    expect((await t.request({ method: 'DELETE', url: `/api/articles/${article.id}`, cookie: admin })).statusCode).toBe(204);
    const left = (await t.database.db.execute(`select count(*)::int as n from article_revisions where article_id = '${article.id}'`)) as unknown as { rows: Array<{ n: number }> };
    expect(left.rows[0]!.n).toBe(0);
  });
});
