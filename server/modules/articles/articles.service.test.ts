import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { articles } from '../../db/schema.ts';
import { createTestApp, type TestApp } from '../../test/test-app.ts';
import { createArticlesService } from './articles.service.ts';

describe('published articles cache', () => {
  let t: TestApp;
  let clock = 0;
  let reads = 0;
  beforeAll(async () => {
    t = await createTestApp();
  });
  afterAll(async () => t.close());

  /** A real database whose reads of the articles table are counted. */
  function service() {
    const db = new Proxy(t.database.db, {
      get(target, prop, receiver) {
        if (prop === 'select') reads++;
        return Reflect.get(target, prop, receiver);
      },
    });
    return createArticlesService({ db, now: () => clock, cacheTtlMs: 5_000 });
  }
  const publish = (slug: string) =>
    t.database.db.insert(articles).values({ slug, title: slug, category: 'AI', excerpt: 'An excerpt', content: 'c'.repeat(60), published: true });

  it('reads the database once for any number of concurrent and repeated reads', async () => {
    const s = service();
    reads = 0;
    await Promise.all([s.listPublished(), s.listPublished(3), s.listPublishedJson(), s.listPublishedJson(1)]);
    await s.listPublishedJson();
    expect(reads).toBe(1);
  });

  it('sees a write at once after invalidate(), and another process’s write within the TTL', async () => {
    const s = service();
    expect((await s.listPublished()).total).toBe(0);
    await publish('first');
    expect((await s.listPublished()).total).toBe(0); // cached
    s.invalidate();
    expect((await s.listPublished()).total).toBe(1);
    await publish('second');
    clock += 5_000;
    expect((await s.listPublished()).total).toBe(2);
  });

  it('serialises the same list it returns, per limit', async () => {
    const s = service();
    const all = await s.listPublished();
    expect(JSON.parse((await s.listPublishedJson()).json)).toEqual(all.items);
    expect(JSON.parse((await s.listPublishedJson(1, 1)).json)).toEqual(all.items.slice(1, 2));
    expect((await s.listPublishedJson(1)).total).toBe(all.total);
  });

  it('does not keep a failed read', async () => {
    let fail = true;
    const db = new Proxy(t.database.db, {
      get(target, prop, receiver) {
        if (prop === 'select' && fail) throw new Error('connection lost');
        return Reflect.get(target, prop, receiver);
      },
    });
    const s = createArticlesService({ db, now: () => clock });
    await expect(s.listPublished()).rejects.toThrow('connection lost');
    fail = false;
    expect((await s.listPublished()).total).toBe(2);
  });
});
