import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { articles } from '../../db/schema.ts';
import { NO_CACHE } from '../../lib/invalidations.ts';
import { createBus, type Bus } from '../events/bus.ts';
import { createTestApp, type TestApp } from '../../test/test-app.ts';
import { createArticleSchedule } from './article-schedule.ts';
import { createArticlesService } from './articles.service.ts';

describe('published articles cache', () => {
  let t: TestApp;
  let bus: Bus;
  let reads = 0;
  beforeAll(async () => {
    t = await createTestApp();
    bus = await createBus({ database: t.database, logger: t.app.log });
  });
  afterAll(async () => {
    await bus.close();
    await t.close();
  });

  /** A real database whose reads of the articles table are counted. */
  function service() {
    const db = new Proxy(t.database.db, {
      get(target, prop, receiver) {
        if (prop === 'select') reads++;
        return Reflect.get(target, prop, receiver);
      },
    });
    return createArticlesService({ db, invalidations: bus.invalidations, schedule: createArticleSchedule({ jobs: t.jobs, logger: t.app.log }) });
  }
  const userId = async () => (await t.request({ method: 'GET', url: '/api/auth/me', cookie: await t.signIn('writer@example.com') }).then((r) => (r.json() as { user: { id: string } }).user.id));
  const publish = (slug: string) =>
    t.database.db.insert(articles).values({ slug, title: slug, category: 'AI', excerpt: 'An excerpt', content: 'c'.repeat(60), status: 'published' });

  it('reads the database once for any number of concurrent and repeated reads', async () => {
    const s = service();
    reads = 0;
    await Promise.all([s.listPublished(), s.listPublished(3), s.listPublishedJson(), s.listPublishedJson(1)]);
    await s.listPublishedJson();
    expect(reads).toBe(1);
  });

  it('keeps the list until an invalidation, which any writer’s transaction sends at commit', async () => {
    const s = service();
    const other = service(); // as another process's cache would
    expect((await s.listPublished()).total).toBe(0);
    expect((await other.listPublished()).total).toBe(0);
    await publish('first');
    expect((await s.listPublished()).total).toBe(0); // cached: this write told nobody
    await t.database.db.transaction(async (tx) => {
      await bus.invalidations.notify(tx, 'articles', '*');
      expect((await s.listPublished()).total).toBe(0); // not before the commit
    });
    expect((await s.listPublished()).total).toBe(1);
    const version = s.version();
    await s.create({ title: 'second', category: 'AI', excerpt: 'An excerpt', content: 'c'.repeat(60), readTime: '1 min read', published: true }, (await t.database.db.query.users.findFirst())?.id ?? (await userId()));
    expect(s.version()).toBeGreaterThan(version);
    expect((await s.listPublished()).total).toBe(2);
    expect((await other.listPublished()).total).toBe(2);
  });

  it('keeps nothing while invalidations could be missed', async () => {
    reads = 0;
    const db = new Proxy(t.database.db, {
      get(target, prop, receiver) {
        if (prop === 'select') reads++;
        return Reflect.get(target, prop, receiver);
      },
    });
    const s = createArticlesService({ db, invalidations: NO_CACHE, schedule: createArticleSchedule({ jobs: t.jobs, logger: t.app.log }) });
    await s.listPublished();
    await s.listPublished();
    expect(reads).toBe(2);
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
    const s = createArticlesService({ db, invalidations: bus.invalidations, schedule: createArticleSchedule({ jobs: t.jobs, logger: t.app.log }) });
    await expect(s.listPublished()).rejects.toThrow('connection lost');
    fail = false;
    expect((await s.listPublished()).total).toBe(2);
  });

  // docs/decisions/0098: the job, a second run of it, the sweeps of every process: one publication.
  it('publishes a due scheduled article once however many publish at once, and drops the cache when it does', async () => {
    const s = service();
    const before = (await s.listPublished()).total;
    const [row] = await t.database.db
      .insert(articles)
      .values({ slug: 'due-one', title: 'due-one', category: 'AI', excerpt: 'An excerpt', content: 'c'.repeat(60), status: 'scheduled', publishAt: new Date(Date.now() - 1000) })
      .returning();
    await t.database.db
      .insert(articles)
      .values({ slug: 'not-yet', title: 'not-yet', category: 'AI', excerpt: 'An excerpt', content: 'c'.repeat(60), status: 'scheduled', publishAt: new Date(Date.now() + 3_600_000) });
    const runs = await Promise.all([s.publishScheduled(row!.id), s.publishScheduled(), s.publishScheduled(), s.publishScheduled(row!.id)]);
    expect(runs.flat()).toEqual([row!.id]);
    const list = await s.listPublished();
    expect(list.total).toBe(before + 1);
    expect(list.items.find((a) => a.slug === 'due-one')?.publishedAt).toBe(row!.publishAt!.toISOString());
    expect(list.items.some((a) => a.slug === 'not-yet')).toBe(false);
  });
});

