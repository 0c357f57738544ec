import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../../test/test-app.ts';
import { ifNoneMatchHits } from './etag.ts';

const article = (title: string) => ({ title, category: 'Automation', excerpt: 'An excerpt of the article.', content: 'Body text of the article, long enough to pass the rules.'.repeat(2), published: true });

describe('ETags on cacheable reads', () => {
  let t: TestApp;
  let admin: string;
  beforeAll(async () => {
    t = await createTestApp();
    admin = await t.signIn('admin@example.com', 'Admin');
    const res = await t.request({ method: 'POST', url: '/api/articles', payload: article('First'), cookie: admin });
    expect(res.statusCode).toBe(201);
  });
  afterAll(async () => t.close());

  it('answers the article list with a weak ETag, 304 with no body while unchanged, and a new tag once it changes', async () => {
    const first = await t.request({ url: '/api/articles?limit=3' });
    expect(first.statusCode).toBe(200);
    expect(first.headers['cache-control']).toBe('no-cache');
    const tag = first.headers.etag as string;
    expect(tag).toMatch(/^W\/"[\w-]+\.1"$/);

    const again = await t.request({ url: '/api/articles?limit=3', headers: { 'if-none-match': tag } });
    expect(again.statusCode).toBe(304);
    expect(again.body).toBe('');
    expect(again.headers.etag).toBe(tag);
    // Compressed or not, the tag is the same (it is weak) and still matches.
    const compressed = await t.request({ url: '/api/articles?limit=3', headers: { 'if-none-match': tag, 'accept-encoding': 'br' } });
    expect(compressed.statusCode).toBe(304);

    await t.request({ method: 'POST', url: '/api/articles', payload: article('Second'), cookie: admin });
    const changed = await t.request({ url: '/api/articles?limit=3', headers: { 'if-none-match': tag } });
    expect(changed.statusCode).toBe(200);
    expect(changed.json().map((a: { title: string }) => a.title)).toEqual(['Second', 'First']);
    expect(changed.headers.etag).not.toBe(tag);
  });

  it('tags one article, kept apart per session (an admin may read a draft there)', async () => {
    const { slug } = ((await t.request({ url: '/api/articles?limit=1' })).json() as Array<{ slug: string }>)[0]!;
    const res = await t.request({ url: `/api/articles/${slug}` });
    expect(res.statusCode).toBe(200);
    expect(res.headers.vary).toMatch(/cookie/i);
    const again = await t.request({ url: `/api/articles/${slug}`, headers: { 'if-none-match': res.headers.etag as string } });
    expect(again.statusCode).toBe(304);
  });

  it('leaves errors and private reads untagged', async () => {
    expect((await t.request({ url: '/api/articles/no-such-article' })).headers.etag).toBeUndefined();
    const settings = await t.request({ url: '/api/settings', cookie: admin });
    expect(settings.statusCode).toBe(200);
    expect(settings.headers.etag).toBeUndefined();
    expect(settings.headers['cache-control']).toBe('no-store');
  });
});

describe('If-None-Match', () => {
  it('matches weakly, in a list, and *', () => {
    expect(ifNoneMatchHits('W/"a"', 'W/"a"')).toBe(true);
    expect(ifNoneMatchHits('"a"', 'W/"a"')).toBe(true);
    expect(ifNoneMatchHits('"x", W/"a"', 'W/"a"')).toBe(true);
    expect(ifNoneMatchHits('*', 'W/"a"')).toBe(true);
    expect(ifNoneMatchHits('W/"b"', 'W/"a"')).toBe(false);
    expect(ifNoneMatchHits(undefined, 'W/"a"')).toBe(false);
  });
});
