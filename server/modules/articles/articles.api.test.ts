import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { articles } from '../../db/schema.ts';
import { createTestApp, type TestApp } from '../../test/test-app.ts';

const day = (n: number) => new Date(Date.UTC(2026, 10, n, 12));

describe('GET /api/articles on an empty site', () => {
  it('answers an empty list when nothing is published', async () => {
    const t = await createTestApp();
    try {
      const res = await t.request({ url: '/api/articles' });
      expect(res.statusCode).toBe(200);
      expect(res.headers['content-type']).toBe('application/json; charset=utf-8');
      expect(res.json()).toEqual([]);
    } finally {
      await t.close();
    }
  });
});

describe('GET /api/articles', () => {
  let t: TestApp;
  // Seeded before the first read: rows written behind the service's back are not announced
  // to its cache (the service's own tests cover invalidation).
  beforeAll(async () => {
    t = await createTestApp();
    await t.database.db.insert(articles).values([
      { slug: 'old', title: 'Old post', category: 'AI', excerpt: 'An older excerpt', content: 'c'.repeat(60), createdAt: day(1), status: 'published' },
      { slug: 'draft', title: 'Secret draft', category: 'AI', excerpt: 'Not yet', content: 'c'.repeat(60), createdAt: day(5), status: 'draft' },
      { slug: 'new', title: 'New post', category: 'Data', excerpt: 'A newer excerpt', content: 'c'.repeat(60), createdAt: day(3), status: 'published', readTime: '7 min read' },
    ]);
  });
  afterAll(async () => t.close());

  // publishedAt (docs/decisions/0098): a row published before it had one shows its creation date.
  // cover (docs/decisions/0099): null without one.
  it('lists published articles only, newest first, with the list fields only', async () => {
    const body = (await t.request({ url: '/api/articles' })).json();
    expect(body).toEqual([
      { id: expect.any(String), slug: 'new', title: 'New post', category: 'Data', excerpt: 'A newer excerpt', createdAt: day(3).toISOString(), publishedAt: day(3).toISOString(), readTime: '7 min read', cover: null },
      { id: expect.any(String), slug: 'old', title: 'Old post', category: 'AI', excerpt: 'An older excerpt', createdAt: day(1).toISOString(), publishedAt: day(1).toISOString(), readTime: '5 min read', cover: null },
    ]);
    expect(JSON.stringify(body)).not.toContain('Secret draft');
  });

  it('is the same for signed-out visitors, guests and admins', async () => {
    const admin = await t.signIn('admin@example.com');
    const guest = await t.signIn('guest@example.com');
    const anonymous = (await t.request({ url: '/api/articles' })).json();
    expect((await t.request({ url: '/api/articles', cookie: guest })).json()).toEqual(anonymous);
    expect((await t.request({ url: '/api/articles', cookie: admin })).json()).toEqual(anonymous);
  });

  it('honours ?limit= and refuses a bad one with 400', async () => {
    expect((await t.request({ url: '/api/articles?limit=1' })).json()).toHaveLength(1);
    for (const limit of ['0', '101', 'abc', '1.5']) {
      const res = await t.request({ url: `/api/articles?limit=${limit}` });
      expect(res.statusCode, limit).toBe(400);
      expect(res.json().details[0].path).toBe('limit');
    }
  });
});
